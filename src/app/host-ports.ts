import type { Config, ConfigEditRequest } from '../base/config/index.js';
import type { ConfigIssue } from '../base/errors/index.js';
import type { Logger } from '../base/logging/index.js';
import type { DeliveryRoute, OutboundFor } from '../base/messages/index.js';
import type { ToolpackProblem } from '../extensions/toolpacks/index.js';
import type { SessionStore } from '../records/sessions/index.js';

/**
 * What the app needs of the host above it (`src/host`), declared here so the arrow points down:
 * the host hands these as `GatewayOptions`, the app never imports the host.
 */

/** The HTTP token of this boot: `http.token`, `<stateDir>/http-token`, or a new one (the host's). */
export interface HttpToken {
  token: string;
  source: 'config' | 'file' | 'generated';
  file?: string;
}

/** Why this gateway runs in safe mode: what `/readyz` (a word and a count) and `/rescue status` (all of it) say. */
export interface SafeModeState {
  /** `crash-loop`: the breaker tripped. */
  cause: 'crash-loop';
  /** The sentence for owners: the unclean starts, when, and why when known. */
  reason: string;
  uncleanStarts: number;
  /** ISO time safe mode began. */
  since: string;
}

export type RestartKind = 'config-patch' | 'config-apply' | 'config-undo' | 'restart';

/** What a caller promising a restart note says; the host's sentinel adds id, status, owner and time. */
export interface RestartNoteRequest {
  kind: RestartKind;
  actor?: string;
  sessionKey?: string;
  /** Where the note goes after the restart: the chat of the session that asked for it. */
  route?: DeliveryRoute;
  /** The owner's note; blank means none. */
  message?: string;
  stats?: Record<string, unknown>;
  /** Said after the note: the new config file was changed by hand and drops something (config-lifecycle.ts). */
  warning?: string;
}

export interface RestartRequest {
  delayMs?: number | undefined;
  reason?: string | undefined;
  /**
   * The note promised to the chat that asked: recorded in the restart sentinel before
   * scheduleRestart resolves, so that it arrives even if the process dies before the restart.
   */
  note?: RestartNoteRequest;
}

export type { RestartRecord } from '../surfaces/control/index.js';

/** What the restart notes' delivery loop is handed by a started gateway. */
export interface RestartNotesContext {
  sessions: SessionStore;
  outboundFor: OutboundFor;
  logger: Logger;
  /** Ends the delivery loop when the gateway stops (the notes left stay in the sentinel). */
  signal: AbortSignal;
}

/** The host's restart notes, delivered by a serving gateway. */
export interface RestartNotes {
  /** Runs until the gateway stops; resolves then (never rejects). */
  run(): Promise<void>;
  /** New due notes were written (a refused restart's answer): look again now. */
  wake(): void;
}

/**
 * The host's start check as the config editor uses it (`src/host/check-startable.ts`): the issues
 * that would stop `next`, read from `file`, from starting in place of the running gateway.
 */
export type ConfigStartCheck = (
  next: Config,
  file: string,
  options: {
    via: ConfigEditRequest['via'];
    running: { config: Config; toolpackProblems: readonly ToolpackProblem[] };
    logger: Logger;
  },
) => Promise<ConfigIssue[]>;
