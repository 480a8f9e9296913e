import path from 'node:path';
import PQueue from 'p-queue';
import type { LoadConfigOptions, LoadedConfig } from '../config/index.js';
import type { LoggerHandle } from '../logging/index.js';
import { describeIssues, loadStartable } from './check-startable.js';
import { createGateway, type Gateway, type GatewayExtensions } from './create-gateway.js';
import { type SentinelPayload, takeRestartSentinel, writeRestartSentinel } from './restart-sentinel.js';

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
  /**
   * Called when a restart left nothing serving: the new config failed to start and so did the
   * last one that started. The process should exit non-zero then, for its supervisor to act.
   */
  onDown?: (error: unknown) => void;
}

/**
 * Owns the running gateway for the life of the process: start, in-process restart (re-read
 * the config, stop everything, build it again) and stop. Restart requests that arrive while
 * one is under way join it. A restart whose config cannot start (the start check, before the
 * running gateway stops) is refused and the running gateway keeps serving; a start that fails
 * anyway goes back to the last config that started. Either way the chat that asked is told.
 */
export function createGatewayHost(options: GatewayHostOptions) {
  const logger = options.log.logger;
  const startedAt = Date.now();
  let current: { gateway: Gateway; loaded: LoadedConfig } | undefined;
  /** The last config that started: what a failed restart goes back to. */
  let lastStarted: LoadedConfig | undefined;
  let restarts = 0;
  const checkLogger = logger.child({ component: 'start-check' });
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
    lastStarted = loaded;
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
      const running = current;
      const checked = await loadStartable(options.configOptions, {
        running: running && {
          config: running.loaded.config,
          toolpackProblems: running.gateway.toolpackProblems,
        },
        via: 'restart',
        logger: checkLogger,
      });
      if (!checked.ok) {
        const text = `Restart refused: ${describeIssues(checked.error.issues)}; still running the previous config.`;
        logger.error({ reason, file: checked.error.file, issues: checked.error.issues }, text);
        await tell(sentinel, text);
        return;
      }
      const { loaded } = checked;
      // The restart is committed: only now may a sentinel promise a note after it.
      await commitSentinel(loaded, sentinel);
      logger.info({ reason }, 'restarting');
      await running?.gateway.stop();
      current = undefined;
      restarts += 1;
      try {
        await boot(loaded);
      } catch (error) {
        await rollBack(error, loaded, sentinel);
      }
    });
    return entry.promise;
  }

  /**
   * The check passed and the start failed anyway (a port taken meanwhile, a platform or store
   * gone): the sentinel written for the new config must not claim a restart, so it goes, and
   * the last config that started serves again. When even that fails nothing serves: `onDown`.
   */
  async function rollBack(error: unknown, failed: LoadedConfig, sentinel: SentinelPayload | undefined) {
    const previous = lastStarted;
    if (sentinel) await takeRestartSentinel(path.resolve(failed.config.stateDir), logger);
    const why = error instanceof Error ? error.message : String(error);
    const text = `Restart failed: ${why}; running the last config that started again.`;
    logger.error({ err: error }, text);
    try {
      if (!previous) throw error;
      await boot(previous);
    } catch (rollbackError) {
      logger.fatal(
        { err: rollbackError },
        'the last config that started failed to start too; nothing serves',
      );
      options.onDown?.(rollbackError);
      return;
    }
    await tell(sentinel, text);
  }

  /** Posts `text` to the chat a restart's sentinel names, through the gateway that serves now. */
  async function tell(sentinel: SentinelPayload | undefined, text: string): Promise<void> {
    const route = sentinel?.route;
    if (!route || !current) return;
    try {
      await current.gateway.notify(
        {
          channel: route.channel,
          chatType: route.chatType,
          chatId: route.target,
          ...(route.thread === undefined ? {} : { threadId: route.thread }),
        },
        text,
      );
    } catch (error) {
      logger.warn(
        { err: error, channel: route.channel },
        'could not tell the chat that asked for the restart',
      );
    }
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
    /** Loads the config, checks it can start, and starts; throws ConfigError naming the file and each path. */
    start(): Promise<void> {
      return serialize(async () => {
        // Channels are not asked first: a start runs without one the platform refuses.
        const checked = await loadStartable(options.configOptions, {
          via: 'start',
          channels: 'none',
          logger: checkLogger,
        });
        if (!checked.ok) throw checked.error;
        await boot(checked.loaded);
      });
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
