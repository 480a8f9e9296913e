import { randomUUID } from 'node:crypto';
import path from 'node:path';
import PQueue from 'p-queue';
import type { LoadConfigOptions, LoadedConfig } from '../config/index.js';
import { ConfigError, errorText } from '../errors/index.js';
import type { LoggerHandle } from '../logging/index.js';
import { describeIssues, loadStartable } from './check-startable.js';
import { createGateway, type Gateway, type GatewayExtensions } from './create-gateway.js';
import { createRestartPromises } from './restart-promises.js';
import type { RestartIntent, RestartNoteRequest } from './restart-sentinel.js';

export const DEFAULT_RESTART_DELAY_MS = 2000;
export const MAX_RESTART_DELAY_MS = 60_000;

export interface RestartRequest {
  delayMs?: number | undefined;
  reason?: string | undefined;
  /**
   * The note promised to the chat that asked: recorded in the restart sentinel before
   * scheduleRestart resolves, so that it arrives even if the process dies before the restart.
   */
  note?: RestartNoteRequest;
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
  // Restart notes: this host's promises carry its id, so a later start can tell they never ran.
  const instance = randomUUID();
  const notes = createRestartPromises({ instance, logger });

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
      restartInstance: instance,
      ...options.extensions,
    });
    const info = await gateway.start();
    current = { gateway, loaded };
    lastStarted = loaded;
    notes.useStateDir(path.resolve(loaded.config.stateDir));
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
    | { dueAt: number; reason: string; intents: RestartIntent[]; timer: NodeJS.Timeout }
    | undefined;

  /** Takes the scheduled restart's notes (the restart about to run serves them) and cancels its timer. */
  function takeScheduled(): RestartIntent[] {
    if (!scheduled) return [];
    clearTimeout(scheduled.timer);
    const { intents } = scheduled;
    scheduled = undefined;
    return intents;
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
      const intents = takeScheduled();
      const running = current;
      const checked = await loadStartable(options.configOptions, {
        running: running && {
          config: running.loaded.config,
          toolpackProblems: running.gateway.toolpackProblems,
        },
        via: 'restart',
        logger: checkLogger,
      }).catch((error: unknown) => {
        // A bug in the check itself: nothing has stopped yet, so refuse rather than guess.
        logger.error({ err: error }, 'the start check failed');
        const message = `the start check failed: ${errorText(error)}`;
        return {
          ok: false as const,
          error: new ConfigError('CONFIG_UNSTARTABLE', undefined, [{ path: '', message }]),
        };
      });
      if (!checked.ok) {
        const text = `Restart refused: ${describeIssues(checked.error.issues)}; still running the previous config.`;
        logger.error({ reason, file: checked.error.file, issues: checked.error.issues }, text);
        await notes.refuse(intents, text);
        running?.gateway.wakeRestartNotes();
        return;
      }
      const { loaded } = checked;
      // The restart is committed: its notes now say the gateway restarted.
      await notes.commit(intents, path.resolve(loaded.config.stateDir));
      logger.info({ reason }, 'restarting');
      await running?.gateway.stop();
      current = undefined;
      restarts += 1;
      try {
        await boot(loaded);
      } catch (error) {
        await rollBack(error, loaded, intents);
      }
    });
    return entry.promise;
  }

  /**
   * The check passed and the start failed anyway (a port taken meanwhile, a platform or store
   * gone): the notes committed for the new config must not claim a restart, so each chat that
   * asked is told it failed instead, and the last config that started serves again. When even
   * that fails nothing serves: `onDown` (the answers wait in the sentinel for the next start).
   */
  async function rollBack(error: unknown, failed: LoadedConfig, intents: RestartIntent[]) {
    const previous = lastStarted;
    const why = errorText(error);
    const text = `Restart failed: ${why}; running the last config that started again.`;
    logger.error({ err: error }, text);
    await notes.refuse(intents, text, path.resolve(failed.config.stateDir));
    try {
      if (!previous) throw error;
      await boot(previous);
    } catch (rollbackError) {
      logger.fatal(
        { err: rollbackError },
        'the last config that started failed to start too; nothing serves',
      );
      options.onDown?.(rollbackError);
    }
  }

  /**
   * Schedules a restart `delayMs` from now (default 2000, clamped to 0–60000). A request made
   * while one is scheduled joins it (`coalesced`); the earlier time wins, and every request's
   * note is kept (see restart-promises.ts). Resolves once the note is recorded.
   */
  async function scheduleRestart(request: RestartRequest): Promise<ScheduledRestart> {
    const delayMs = Math.min(
      MAX_RESTART_DELAY_MS,
      Math.max(0, Math.floor(request.delayMs ?? DEFAULT_RESTART_DELAY_MS)),
    );
    const reason = request.reason ?? 'restart requested';
    // After stop nothing restarts; no timer may keep the process alive either.
    if (stopped) return { status: 'scheduled', delayMs, reason, coalesced: false };
    const dueAt = Date.now() + delayMs;
    const previous = scheduled;
    const intents = previous?.intents ?? [];
    // Before any await: the restart cannot run (and take the notes) between these lines.
    const recorded = request.note ? notes.promise(intents, request.note) : Promise.resolve();
    let answer: ScheduledRestart;
    if (previous && previous.dueAt <= dueAt) {
      answer = {
        status: 'scheduled',
        delayMs: previous.dueAt - Date.now(),
        reason: previous.reason,
        coalesced: true,
      };
    } else {
      if (previous) clearTimeout(previous.timer);
      const timer = setTimeout(() => {
        restart(reason).catch((error: unknown) => logger.error({ err: error }, 'scheduled restart failed'));
      }, delayMs);
      scheduled = { dueAt, reason, timer, intents };
      answer = { status: 'scheduled', delayMs, reason, coalesced: previous !== undefined };
      logger.info({ delayMs, reason, coalesced: answer.coalesced }, 'restart scheduled');
    }
    await recorded;
    return answer;
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
        // A restart promised and not run: the next start is that restart, and brings its notes.
        await notes.commit(takeScheduled());
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
