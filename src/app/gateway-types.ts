import type { Config, LoadedConfig } from '../base/config/index.js';
import type { Logger, LoggerHandle } from '../base/logging/index.js';
import type { ModelProvider, ProviderOptions, TurnRunner } from '../engine/agents/index.js';
import type { Metrics, Observer } from '../engine/observability/index.js';
import type { RescuePort } from '../engine/routing/index.js';
import type { ScheduledRestart, Tool, UpdatePort } from '../engine/tools/index.js';
import type { UsageLedger } from '../engine/usage/index.js';
import type { DeliveryRetry, ToolpackProblem } from '../extensions/toolpacks/index.js';
import type { RunStore, SessionEvents, SessionStore } from '../records/sessions/index.js';
import type { Store } from '../records/store/index.js';
import type { ChannelSupervisor } from '../surfaces/channels/index.js';
import type { WebchatPort } from '../surfaces/http/index.js';
import type { GatewayChannels } from './build-channels.js';
import type {
  ConfigStartCheck,
  HttpToken,
  RestartNotes,
  RestartNotesContext,
  RestartRecord,
  RestartRequest,
  SafeModeState,
} from './host-ports.js';

/** What an embedder (or a test) may add to a gateway. */
export interface GatewayExtensions {
  /** Replaces the turn runner; tests use it to script slow or failing turns. */
  createRunner?: (context: { configPath: string }) => TurnRunner;
  /** Tools registered next to the built-in ones. */
  tools?: readonly Tool[];
  /** Replaces provider construction; the benchmark wraps the real providers to time model calls. */
  createModelProvider?: (options: ProviderOptions) => ModelProvider | Promise<ModelProvider>;
  /**
   * Whether the log goes to a terminal (`switchboard start` passes stdout's isTTY): only then does
   * a newly generated token appear in the ready line's link. Otherwise (pm2, systemd, a pipe: the
   * log ends up in a file) the line says where the token file is. Default false.
   */
  showTokenLink?: boolean;
  /**
   * Called each time the gateway serves (start and every restart) with its web chat channel, or
   * undefined when it is off: the benchmark hands messages to it in-process, as the HTTP route does.
   */
  onServing?: (parts: { webchat: WebchatPort | undefined }) => void;
  /**
   * How a toolpack message a route refuses is retried before its status is `failed`
   * (docs/toolpack-store.md); default 3 attempts, 1 s then 2 s apart. Tests shorten the delays.
   */
  toolpackMessageRetry?: DeliveryRetry;
  /**
   * The clock of usage days and budgets (`budgets.timeZone` days), of model cooldowns and of the
   * link and pairing codes' expiry; tests fix it or move it past a cooldown. Default: the system's.
   */
  now?: () => Date;
  /**
   * Whether the host collects metrics and spans (`GET /metrics`, `src/engine/observability`); default
   * true. The metrics benchmark turns it off to measure what collecting costs.
   */
  collectMetrics?: boolean;
}

export interface GatewayOptions extends GatewayExtensions {
  loaded: LoadedConfig;
  log: LoggerHandle;
  /** When the process started (uptime survives restarts). */
  startedAt: number;
  /** The environment `${NAME}` references were read from for this boot. */
  environment: NodeJS.ProcessEnv;
  /**
   * The environment the next start will read (the env file read again, as the host's restart
   * does): config edits validate against it, and the Setup page writes secrets to its env file.
   * Default: `environment`.
   */
  nextEnvironment?: () => NodeJS.ProcessEnv;
  /** The HTTP token of this boot (the host resolves it after making the state dir private). */
  token: HttpToken;
  /** The host's start check: what the config editor dry-runs an edit through. */
  startCheck: ConfigStartCheck;
  /** The host's restart scheduler (it outlives this gateway). */
  scheduleRestart(request: RestartRequest): Promise<ScheduledRestart>;
  /** The host's restart notes, delivered while this gateway serves; absent, none are. */
  restartNotes?: (context: RestartNotesContext) => RestartNotes;
  /** The host's boots (start, restarts), oldest first, for the health page; absent, none are shown. */
  restartHistory?: () => readonly RestartRecord[];
  /** The host's metrics (they outlive restarts); absent, nothing is observed and `/metrics` is not served. */
  metrics?: Metrics;
  /** The crash-loop breaker tripped: `loaded` is safe mode's config already, and no schedules run. */
  safeMode?: SafeModeState;
  /** `/rescue`'s access to the host (start record, last good config, leaving safe mode). */
  rescue?: RescuePort;
  /** The host's updater (issue 31): the gateway tool's update actions and `/update`; absent, they say so. */
  update?: UpdatePort;
}

export interface Gateway {
  /**
   * Builds and starts every service. The web chat URL carries the token only on the start that
   * generated it (shown once); otherwise it says where the token is.
   */
  start(): Promise<{ url: string; webchatUrl: string | undefined }>;
  /** Stops taking messages, lets turns end (up to `gateway.drainTimeoutMs`), closes everything. */
  stop(): Promise<void>;
  /** The toolpack problems of the running gateway (reported and skipped); [] before start. */
  readonly toolpackProblems: readonly ToolpackProblem[];
  /** Restart notes became due while this gateway runs (a refused restart's answer): deliver them now. */
  wakeRestartNotes(): void;
}

/** What the storage part starts: the options, the settings derived from them, the store and records. */
export interface Storage {
  options: GatewayOptions;
  config: Config;
  logger: Logger;
  stateDir: string;
  configPath: string;
  store: Store;
  /** Observed by `sessionEvents`: every write is reported there. */
  sessions: SessionStore;
  /** The session events bus (`GET /api/events`). */
  sessionEvents: SessionEvents;
  runs: RunStore;
  /** Every model call's tokens by usage day: `/usage`, `GET /api/usage` and the budgets read it. */
  usage: UsageLedger;
  /** Wraps parts so they are counted and traced; absent when the host collects no metrics. */
  observer: Observer | undefined;
}

/** What every part after the channels shares: the storage and the channel adapters with delivery by route. */
export interface Base extends Storage {
  channels: GatewayChannels;
  /** Keeps the adapters connected; built with them, started by the `connect` part. */
  supervisor: ChannelSupervisor;
}
