import path from 'node:path';
import PQueue from 'p-queue';
import { type LoadConfigOptions, type LoadedConfig, loadConfig } from '../config/index.js';
import type { LoggerHandle } from '../logging/index.js';
import { createGateway, type Gateway, type GatewayExtensions } from './create-gateway.js';
import { type SentinelPayload, writeRestartSentinel } from './restart-sentinel.js';

export const DEFAULT_RESTART_DELAY_MS = 2000;
export const MAX_RESTART_DELAY_MS = 60_000;

export interface RestartRequest {
  delayMs?: number | undefined;
  reason?: string | undefined;
  /** Written as the restart sentinel once the restart is committed (its config loaded fine). */
  sentinel?: SentinelPayload;
}

export interface ScheduledRestart {
  status: 'scheduled';
  /** How long from now until the restart (the earliest requested time wins). */
  delayMs: number;
  reason: string;
  /** True when this request joined a restart that was already scheduled. */
  coalesced: boolean;
}

export interface GatewayHostOptions {
  log: LoggerHandle;
  configOptions?: LoadConfigOptions;
  extensions?: GatewayExtensions;
  /** Called once the gateway serves (first start and every restart). */
  onReady?: (info: { url: string; webchatUrl: string | undefined; restarts: number }) => void;
}

/**
 * Owns the running gateway for the life of the process: start, in-process restart (re-read
 * the config, stop everything, build it again) and stop. Restart requests that arrive while
 * one is under way join it. A restart whose config is invalid keeps the running gateway.
 */
export function createGatewayHost(options: GatewayHostOptions) {
  const logger = options.log.logger;
  const startedAt = Date.now();
  let current: { gateway: Gateway; loaded: LoadedConfig } | undefined;
  let restarts = 0;
  // Start, restarts and stop run one at a time, in the order they were asked for.
  const lifecycle = new PQueue({ concurrency: 1 });
  const serialize = (task: () => Promise<void>) => lifecycle.add(task);
  let stopped = false;

  async function boot(loaded: LoadedConfig): Promise<void> {
    logger.level = loaded.config.log.level;
    if (!loaded.path)
      logger.info('no config file found; running on built-in defaults (see config/gateway.example.jsonc)');
    const gateway = createGateway({
      loaded,
      log: options.log,
      startedAt,
      environment: options.configOptions?.environment ?? process.env,
      scheduleRestart: (request) => scheduleRestart(request),
      ...options.extensions,
    });
    const info = await gateway.start();
    current = { gateway, loaded };
    const message = info.webchatUrl
      ? `Switchboard ready; web chat: ${info.webchatUrl}`
      : `Switchboard ready at ${info.url}`;
    logger.info({ url: info.url, restarts }, message);
    options.onReady?.({ ...info, restarts });
  }

  /** A restart asked for and not started yet: later requests join it. */
  let waitingRestart: { promise?: Promise<void> } | undefined;
  /** A restart scheduled for later; requests close together join it and the earliest time wins. */
  let scheduled:
    | { dueAt: number; reason: string; sentinel?: SentinelPayload; timer: NodeJS.Timeout }
    | undefined;

  /** Takes the scheduled restart's sentinel (the restart about to run serves it) and cancels its timer. */
  function takeScheduled(): SentinelPayload | undefined {
    if (!scheduled) return undefined;
    clearTimeout(scheduled.timer);
    const { sentinel } = scheduled;
    scheduled = undefined;
    return sentinel;
  }

  async function commitSentinel(loaded: LoadedConfig, sentinel: SentinelPayload | undefined): Promise<void> {
    if (!sentinel) return;
    const stateDir = path.resolve(loaded.config.stateDir);
    try {
      const file = await writeRestartSentinel(stateDir, { ...sentinel, ts: Date.now() });
      logger.info({ file, kind: sentinel.kind }, 'restart sentinel written');
    } catch (error) {
      logger.error({ err: error }, 'could not write the restart sentinel; the note will not be delivered');
    }
  }

  /** Restarts in-process; requests made while one waits to run join it. */
  function restart(reason = 'restart requested'): Promise<void> {
    if (waitingRestart?.promise) return waitingRestart.promise;
    // The queue may start the task at once, inside add(): the entry exists before it does.
    const entry: { promise?: Promise<void> } = {};
    waitingRestart = entry;
    entry.promise = serialize(async () => {
      if (waitingRestart === entry) waitingRestart = undefined;
      if (stopped) return;
      const sentinel = takeScheduled();
      let loaded: LoadedConfig;
      try {
        loaded = await loadConfig(options.configOptions);
      } catch (error) {
        logger.error(
          { err: error },
          `restart refused (${reason}): the config is invalid; the running gateway stays up`,
        );
        return;
      }
      // The restart is committed: only now may a sentinel promise a note after it.
      await commitSentinel(loaded, sentinel);
      logger.info({ reason }, 'restarting');
      await current?.gateway.stop();
      current = undefined;
      restarts += 1;
      await boot(loaded);
    });
    return entry.promise;
  }

  /**
   * Schedules a restart `delayMs` from now (default 2000, clamped to 0–60000). A request made
   * while one is scheduled joins it (`coalesced`); the earlier time wins, and the newer
   * sentinel replaces the older one only when it carries a note or the older one has none.
   */
  function scheduleRestart(request: RestartRequest): ScheduledRestart {
    const delayMs = Math.min(
      MAX_RESTART_DELAY_MS,
      Math.max(0, Math.floor(request.delayMs ?? DEFAULT_RESTART_DELAY_MS)),
    );
    const reason = request.reason ?? 'restart requested';
    // After stop nothing restarts; no timer may keep the process alive either.
    if (stopped) return { status: 'scheduled', delayMs, reason, coalesced: false };
    const dueAt = Date.now() + delayMs;
    const coalesced = scheduled !== undefined;
    const previous = scheduled;
    const sentinel =
      request.sentinel && (request.sentinel.message || !previous?.sentinel?.message)
        ? request.sentinel
        : previous?.sentinel;
    if (previous && previous.dueAt <= dueAt) {
      if (sentinel) previous.sentinel = sentinel;
      return {
        status: 'scheduled',
        delayMs: previous.dueAt - Date.now(),
        reason: previous.reason,
        coalesced,
      };
    }
    if (previous) clearTimeout(previous.timer);
    const timer = setTimeout(() => {
      restart(reason).catch((error: unknown) => logger.error({ err: error }, 'scheduled restart failed'));
    }, delayMs);
    scheduled = { dueAt, reason, timer, ...(sentinel ? { sentinel } : {}) };
    logger.info({ delayMs, reason, coalesced }, 'restart scheduled');
    return { status: 'scheduled', delayMs, reason, coalesced };
  }

  return {
    /** Loads the config and starts; throws ConfigError for an invalid config. */
    start(): Promise<void> {
      return serialize(async () => boot(await loadConfig(options.configOptions)));
    },
    restart,
    scheduleRestart,
    /** Stops gracefully; later restarts are ignored. */
    stop(): Promise<void> {
      return serialize(async () => {
        stopped = true;
        takeScheduled();
        await current?.gateway.stop();
        current = undefined;
      });
    },
    get restarts() {
      return restarts;
    },
    get loaded(): LoadedConfig | undefined {
      return current?.loaded;
    },
  };
}

export type GatewayHost = ReturnType<typeof createGatewayHost>;
