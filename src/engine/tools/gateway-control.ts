import type { ConfigChange, ConfigSnapshot, SchemaLookupResult } from '../../base/config/index.js';
import type { Result } from '../../base/errors/index.js';
import type { DeliveryRoute } from '../../base/messages/index.js';

export interface GatewayEditRequest {
  /** The new config (config.apply) or a merge patch (config.patch), as JSON or JSON5 text. */
  raw: string;
  baseHash: string;
  note?: string | undefined;
  /** The session whose chat gets the note after the restart. */
  sessionKey: string;
  /** That session's chat, when the caller knows it (its own session may have no record yet). */
  route?: DeliveryRoute | undefined;
  restartDelayMs?: number | undefined;
  /** Sender id of the owner, for the audit log. */
  actor: string;
  /** `tool` refuses changes to protected paths (owners, secrets, URLs, …) and unlisted removals; `command` (an owner typing) may change anything. */
  via: 'tool' | 'command';
  /** Paths whose value the edit replaces whole and where removing keys or array items is intended. */
  replacePaths?: readonly string[] | undefined;
  /** The edit means to leave webchat:local (the operator) out of owners; refused otherwise. */
  allowOperatorLockout?: boolean | undefined;
  /**
   * The approver chose "always" for this edit's approval: `agents.<agentId>.approvals.tools.<tool> =
   * "auto"` is written with it, in the same write (the tool's guard does not apply to that part).
   */
  always?: { agentId: string; tool: string; by: string } | undefined;
}

export interface GatewayRestartRequest {
  delayMs?: number | undefined;
  reason?: string | undefined;
  note?: string | undefined;
  sessionKey: string;
  route?: DeliveryRoute | undefined;
  actor: string;
}

/**
 * config.get: the file with every secret replaced by a placeholder. A file that does not load
 * shows only its errors, and a note on how to fix it.
 */
export type ConfigView =
  | Extract<ConfigSnapshot, { config: Record<string, unknown> }>
  | (Extract<ConfigSnapshot, { valid: false }> & { note: string });

/** A restart the gateway will run: in `delayMs`, or sooner when it joined an earlier one. */
export interface ScheduledRestart {
  status: 'scheduled';
  /** How long from now until the restart (the earliest requested time wins). */
  delayMs: number;
  reason: string;
  /** True when this request joined a restart that was already scheduled. */
  coalesced: boolean;
}

/** The file an edit wrote. */
export interface ConfigWritten {
  changed: true;
  path: string;
  hash: string;
  previousHash: string;
  changedPaths: string[];
  removedPaths: string[];
}

/**
 * config.patch and config.apply: nothing to change; or written and a restart scheduled to apply
 * it; or written and not applied, because the running config forbids restarts.
 */
export type ConfigEditOutcome =
  | { changed: false; hash: string }
  | (ConfigWritten & { restart: ScheduledRestart })
  | (ConfigWritten & { restart: { scheduled: false; reason: string }; restartNeeded: true });

/** What an edit would do, checked but not written: for an owner to confirm. */
export type ConfigEditPlanView =
  | { changed: false; hash: string }
  | { changed: true; previousHash: string; changedPaths: string[]; removedPaths: string[]; diff: string };

/** `/config undo`: like an edit request, without the edit (the text is the one before the change). */
export type GatewayUndoRequest = Omit<GatewayEditRequest, 'raw' | 'replacePaths' | 'via'>;

/**
 * The gateway as owner-only tools and commands see it; built by the composition root. A refusal
 * (a stale hash, a protected path, restarts disabled) is an error result, never a throw.
 */
export interface GatewayControl {
  configGet(): Promise<Result<ConfigView>>;
  /** The schema node at a dot path (`[n]` for array items) and its children. */
  schemaLookup(path: string): Result<SchemaLookupResult>;
  /** Validates, writes (atomic, backup, audit) and schedules a restart whose note reaches `sessionKey`. */
  configEdit(
    action: 'config.patch' | 'config.apply',
    request: GatewayEditRequest,
  ): Promise<Result<ConfigEditOutcome>>;
  /** The edit configEdit would make (validated, start-checked) and its diff, secrets redacted; writes nothing. */
  configPreview(
    action: 'config.patch' | 'config.apply',
    request: GatewayEditRequest,
  ): Promise<Result<ConfigEditPlanView>>;
  /** The config audit log's changes, oldest first, each numbered by its line. */
  configHistory(): Promise<Result<ConfigChange[]>>;
  /** Change `number` and its diff, secrets redacted ('' when the file after it is no longer kept). */
  configChange(number: number): Promise<Result<{ change: ConfigChange; diff: string }>>;
  /** Writes back the file before change `number` as an edit does (checked, audited, restart + note). */
  configUndo(number: number, request: GatewayUndoRequest): Promise<Result<ConfigEditOutcome>>;
  /** Refused when `commands.restart` is false. */
  restart(request: GatewayRestartRequest): Promise<Result<ScheduledRestart>>;
  /** Whether `restart` would be refused (`commands.restart` false), asked before anyone approves one. */
  restartAllowed(): Result<void>;
  /** update.check / update.run / update.status; absent where updates are not wired (tests of one tool). */
  update?: UpdatePort | undefined;
}

/** Who asks for an update (`update.run`) and where its outcome note goes. */
export interface UpdateRunRequest {
  by: string;
  sessionKey?: string | undefined;
  route?: DeliveryRoute | undefined;
  /** A commit or tag to update to instead of the source's head (an owner naming a version that rolled back). */
  target?: string | undefined;
}

/**
 * Updates from the configured source (src/update): each answer carries `text`, its words for a
 * chat. `run` answers once the updater has started; the outcome comes as a restart note.
 */
export interface UpdatePort {
  check(): Promise<Result<{ text: string }>>;
  run(request: UpdateRunRequest): Promise<Result<{ text: string; started: boolean }>>;
  status(): Promise<Result<{ text: string }>>;
  /** The second owner approval of a run waiting for a config migration. */
  approve(request: { by: string }): Promise<Result<{ text: string }>>;
}
