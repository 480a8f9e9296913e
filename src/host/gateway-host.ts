import { randomUUID } from 'node:crypto';
import path from 'node:path';
import PQueue from 'p-queue';
import pTimeout from 'p-timeout';
import { createGateway, type Gateway, type GatewayExtensions, type RestartRecord } from '../app/index.js';
import {
  type LoadConfigOptions,
  type LoadedConfig,
  modeText,
  tightenConfigFile,
} from '../base/config/index.js';
import { ConfigError, errorText, fail, ok, type Result, SwitchboardError } from '../base/errors/index.js';
import { type Logger, type LoggerHandle, logFileOptions } from '../base/logging/index.js';
import { createMetrics, type Metrics } from '../engine/observability/index.js';
import {
  checkStartable,
  describeIssues,
  type LoadStartableResult,
  loadStartable,
} from './check-startable.js';
import { handChangeWarning, keepReady, restoreAfterFailedStart } from './config-lifecycle.js';
import { afterReady, createHostUpdates } from './host-updates.js';
import { resolveHttpToken } from './http-token.js';
import { createRescuePort } from './rescue-port.js';
import { createRestartNotes } from './restart-note.js';
import { createRestartPromises, type RestartPromises } from './restart-promises.js';
import { createRestartSchedule, type RestartSchedule } from './restart-schedule.js';
import { createRestartSentinel, type RestartIntent } from './restart-sentinel.js';
import { type SafeModeState, safeModeConfig } from './safe-mode.js';
import { type BreakerLimits, CLEAN_AFTER_MS, StartRecord } from './start-record.js';
import { makeStateDirPrivate } from './state-dir.js';

/** How many boots `history` keeps. */
const HISTORY_KEPT = 20;

/**
 * Past `gateway.drainTimeoutMs`, how long a stop may still take (closing channels, servers, the
 * store) before the host gives up on it: a stop that never ends would leave a process that is
 * alive and serves nothing, which a supervisor cannot see.
 */
export const STOP_GRACE_MS = 5000;

export interface GatewayHostOptions {
  log: LoggerHandle;
  configOptions?: LoadConfigOptions;
  /**
   * The environment `${NAME}` references are read from, asked again at the start and at every
   * restart (the CLI's: the process's own over the env file, `data/.env`), so that an edited env
   * file needs a restart, not a new process. Default: `configOptions.environment` or `process.env`.
   */
  environment?: () => NodeJS.ProcessEnv;
  extensions?: GatewayExtensions;
  /** Called once the gateway serves (first start and every restart). */
  onReady?: (info: { url: string; webchatUrl: string | undefined; restarts: number }) => void;
  /**
   * Called when a restart left nothing serving: the new config failed to start and so did the
   * last one that started, or the running gateway did not stop in time (STOP_GRACE_MS). The
   * process should exit non-zero then, for its supervisor to act.
   */
  onDown?: (error: unknown) => void;
  /** The crash-loop breaker's limits (default 3 unclean starts in 5 min); tests shorten them. */
  breaker?: BreakerLimits;
  /** How long after ready a start becomes clean (default 1 min); tests shorten it. */
  cleanAfterMs?: number;
}

/** What the host keeps between calls; each lifecycle step below takes it. */
interface HostState {
  options: GatewayHostOptions;
  /** The environment the config being started was loaded with (`readConfigOptions`). */
  environment: NodeJS.ProcessEnv;
  logger: Logger;
  checkLogger: Logger;
  startedAt: number;
  /** This host's id: its restart promises carry it, so a later start can tell they never ran. */
  instance: string;
  notes: RestartPromises;
  schedule: RestartSchedule;
  /** Start, restarts and stop run one at a time, in the order they were asked for. */
  lifecycle: PQueue;
  current: { gateway: Gateway; loaded: LoadedConfig } | undefined;
  /** The last config that started: what a failed restart goes back to. */
  lastStarted: LoadedConfig | undefined;
  restarts: number;
  /** Each boot that served (the start, restarts, roll-backs), oldest first: the health page's restarts. */
  history: RestartRecord[];
  stopped: boolean;
  /** A restart asked for and not started yet: later requests join it. */
  waitingRestart: { promise?: Promise<void> } | undefined;
  /** The metrics of every gateway this host runs: counters survive the in-process restarts. */
  metrics: Metrics | undefined;
  /** This process's entry in `<stateDir>/start-record.json` (the crash-loop breaker), from the start on. */
  record: StartRecord | undefined;
  /** The breaker tripped at the start: every boot runs safe mode's config until an owner leaves it. */
  safeMode: SafeModeState | undefined;
  /** Marks the start clean a minute after ready (unref'd). */
  cleanTimer: NodeJS.Timeout | undefined;
  /** Writes an uncaught error as this start's cause; removed at stop. */
  onUncaught: ((error: Error) => void) | undefined;
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
  const instance = randomUUID();
  const notes = createRestartPromises({ instance, logger });
  const state: HostState = {
    options,
    environment: options.configOptions?.environment ?? process.env,
    logger,
    checkLogger: logger.child({ component: 'start-check' }),
    startedAt: Date.now(),
    instance,
    notes,
    schedule: createRestartSchedule({ notes, logger, restart: (reason) => restart(state, reason) }),
    lifecycle: new PQueue({ concurrency: 1 }),
    current: undefined,
    lastStarted: undefined,
    restarts: 0,
    history: [],
    stopped: false,
    waitingRestart: undefined,
    metrics: options.extensions?.collectMetrics === false ? undefined : createMetrics(),
    record: undefined,
    safeMode: undefined,
    cleanTimer: undefined,
    onUncaught: undefined,
  };
  return {
    /** Loads the config, checks it can start, and starts; throws ConfigError naming the file and each path. */
    start: (): Promise<void> => serialize(state, () => start(state)),
    /** Restarts in-process; requests made while one waits to run join it. */
    restart: (reason?: string): Promise<void> => restart(state, reason),
    scheduleRestart: state.schedule.schedule,
    /** Stops gracefully; later restarts are ignored. */
    stop: (): Promise<void> => serialize(state, () => stop(state)),
    get restarts() {
      return state.restarts;
    },
    get loaded(): LoadedConfig | undefined {
      return state.current?.loaded;
    },
    /** Safe mode's cause while the breaker holds this host there. */
    get safeMode(): SafeModeState | undefined {
      return state.safeMode;
    },
  };
}

export type GatewayHost = ReturnType<typeof createGatewayHost>;

const serialize = (state: HostState, task: () => Promise<void>): Promise<void> => state.lifecycle.add(task);

async function start(state: HostState): Promise<void> {
  // Channels are not asked first: a start runs without one the platform refuses.
  const checked = await loadStartable(readConfigOptions(state), {
    via: 'start',
    channels: 'none',
    logger: state.checkLogger,
  });
  if (!checked.ok) throw checked.error.cause;
  const { loaded } = checked.value;
  await openStartRecord(state, loaded);
  try {
    await boot(state, loaded, 'start');
  } catch (error) {
    state.record?.causeSync(`start failed: ${errorText(error)}`);
    throw error;
  }
}

/**
 * The crash-loop breaker (issue 32 §2): this start is written to the start record before anything
 * else runs; three unclean starts within five minutes before it and this start is safe mode. An
 * uncaught error is written as this start's cause as the process dies (a monitor: it changes nothing).
 */
async function openStartRecord(state: HostState, loaded: LoadedConfig): Promise<void> {
  const { uncleanStarts, windowMs } = loaded.config.gateway.crashLoop;
  const limits =
    state.options.breaker ?? (uncleanStarts === 0 ? undefined : { threshold: uncleanStarts, windowMs });
  if (!limits) return;
  try {
    const { record, verdict } = await StartRecord.open(path.resolve(loaded.config.stateDir), limits);
    state.record = record;
    if (verdict.safeMode) {
      state.safeMode = {
        cause: 'crash-loop',
        reason: verdict.reason,
        uncleanStarts: verdict.unclean.length,
        since: new Date().toISOString(),
      };
      state.logger.error(
        { unclean: verdict.unclean.length },
        `safe mode: ${verdict.reason}. No platform, toolpack, MCP server or schedule starts; an owner's /rescue status says why, /rescue leave-safe-mode ends it. The config file is not changed.`,
      );
    }
  } catch (error) {
    state.logger.warn(
      { err: error },
      'could not write the start record; the crash-loop breaker is off for this start',
    );
    return;
  }
  state.onUncaught = (error) => state.record?.causeSync(errorText(error));
  process.on('uncaughtExceptionMonitor', state.onUncaught);
}

async function stop(state: HostState): Promise<void> {
  state.stopped = true;
  clearTimeout(state.cleanTimer);
  if (state.onUncaught) process.off('uncaughtExceptionMonitor', state.onUncaught);
  // A graceful stop is a clean start, however soon after ready.
  await state.record?.clean().catch(() => undefined);
  // A restart promised and not run: the next start is that restart, and brings its notes.
  await state.notes.commit(state.schedule.close());
  const running = state.current;
  if (!running) return;
  const stopped = await stopWithin(running);
  state.current = undefined;
  if (!stopped.ok) throw stopped.error;
}

/**
 * Stops the gateway, waiting at most its drain time and STOP_GRACE_MS; past that the stop is
 * abandoned (whatever it waits on may never end) and the error says so.
 */
async function stopWithin(running: { gateway: Gateway; loaded: LoadedConfig }): Promise<Result<void, Error>> {
  const drainMs = running.loaded.config.gateway.drainTimeoutMs;
  const milliseconds = drainMs + STOP_GRACE_MS;
  const seconds = Math.round(milliseconds / 100) / 10;
  const late = new SwitchboardError(
    'GATEWAY_STATE',
    `the gateway did not stop within ${seconds} s (gateway.drainTimeoutMs ${drainMs} ms and ${STOP_GRACE_MS / 1000} s to close); a turn, sub-agent or service ignored the stop`,
  );
  try {
    await pTimeout(running.gateway.stop(), { milliseconds, message: late });
    return ok(undefined);
  } catch (error) {
    return fail(error instanceof Error ? error : new Error(errorText(error)));
  }
}

/**
 * A config file that holds a secret written out and that group or others may read is made 0600
 * at every boot, and the log says so naming the file (the config editor writes 0600 itself).
 * A file this user cannot chmod is logged as a warning; it does not stop the start.
 */
async function tightenConfigMode(loaded: LoadedConfig, logger: Logger): Promise<void> {
  try {
    const loose = await tightenConfigFile(loaded);
    if (loose)
      logger.warn(
        { file: loose.file, mode: modeText(loose.mode) },
        `the config file ${loose.file} holds secrets and was readable by group or others (mode ${modeText(loose.mode)}): made 0600`,
      );
  } catch (error) {
    logger.warn(
      { file: loaded.path, err: error },
      `the config file ${loaded.path} holds secrets and is readable by group or others, and could not be made 0600: run chmod 600 on it`,
    );
  }
}

async function boot(state: HostState, loaded: LoadedConfig, reason: string): Promise<void> {
  const { options, logger } = state;
  // The same file options keep the open file; a new path is checked by the start check already.
  await options.log.useFile(logFileOptions(loaded.config.log, loaded.config.stateDir));
  logger.level = loaded.config.log.level;
  await tightenConfigMode(loaded, logger);
  if (!loaded.path)
    logger.info('no config file found; running on built-in defaults (see config/gateway.example.jsonc)');
  const safe = state.safeMode;
  const stateDir = path.resolve(loaded.config.stateDir);
  const tightened = await makeStateDirPrivate(stateDir);
  if (tightened.length > 0)
    logger.info({ stateDir, entries: tightened.slice(0, 20) }, 'state dir made private');
  const wake = () => state.current?.gateway.wakeRestartNotes();
  const updates = createHostUpdates({ loaded, logger, wake });
  const gateway = createGateway({
    loaded: safe ? safeModeConfig(loaded) : loaded,
    log: options.log,
    startedAt: state.startedAt,
    environment: state.environment,
    // What the next restart will read (readConfigOptions), without keeping it for this boot.
    nextEnvironment: () => options.environment?.() ?? state.environment,
    token: await resolveHttpToken(loaded.config.http.token, stateDir),
    startCheck: async (next, file, check) => (await checkStartable(next, file, check)).issues,
    scheduleRestart: state.schedule.schedule,
    restartNotes: (context) =>
      createRestartNotes({
        ...context,
        sentinel: createRestartSentinel({ stateDir, logger }),
        instance: state.instance,
      }),
    restartHistory: () => state.history,
    ...options.extensions,
    ...(state.metrics ? { metrics: state.metrics } : {}),
    ...(safe ? { safeMode: safe } : {}),
    rescue: rescuePort(state),
    update: updates,
  });
  const info = await gateway.start();
  state.history.push({ at: new Date().toISOString(), reason });
  // Only the latest matter; a long-lived process must not grow this without bound.
  if (state.history.length > HISTORY_KEPT) state.history.shift();
  state.current = { gateway, loaded };
  state.lastStarted = loaded;
  state.notes.useStateDir(path.resolve(loaded.config.stateDir));
  const message = info.webchatUrl
    ? `Switchboard ready; web chat: ${info.webchatUrl}`
    : `Switchboard ready at ${info.url}`;
  logger.info({ url: info.url, restarts: state.restarts }, message);
  options.onReady?.({ ...info, restarts: state.restarts });
  await markReady(state);
  afterReady(updates, wake, logger);
  // Safe mode reaching ready says nothing of the config: it is not kept as the last that started.
  if (!safe) await keepReady(loaded, reason === 'start', logger);
}

/** `/rescue`'s access to this host: the start record, the last config that reached ready, leaving safe mode. */
function rescuePort(state: HostState) {
  return createRescuePort({
    loaded: () => state.current?.loaded,
    safeMode: () => state.safeMode,
    starts: () => state.record?.starts ?? [],
    leaveSafeMode: async () => {
      state.safeMode = undefined;
      await state.record?.clear();
    },
  });
}

/** The start reached ready; a minute later it is clean (the breaker no longer counts it). */
async function markReady(state: HostState): Promise<void> {
  const record = state.record;
  if (!record || state.cleanTimer) return;
  await record
    .ready()
    .catch((error: unknown) => state.logger.warn({ err: error }, 'could not write the start record'));
  state.cleanTimer = setTimeout(() => {
    record
      .clean()
      .catch((error: unknown) => state.logger.warn({ err: error }, 'could not write the start record'));
  }, state.options.cleanAfterMs ?? CLEAN_AFTER_MS);
  state.cleanTimer.unref();
}

/** Queues a restart; a request made while one waits to run joins it. */
function restart(state: HostState, reason = 'restart requested'): Promise<void> {
  if (state.waitingRestart?.promise) return state.waitingRestart.promise;
  // The queue may start the task at once, inside add(): the entry exists before it does.
  const entry: { promise?: Promise<void> } = {};
  state.waitingRestart = entry;
  entry.promise = serialize(state, async () => {
    if (state.waitingRestart === entry) state.waitingRestart = undefined;
    if (!state.stopped) await runRestart(state, reason);
  });
  return entry.promise;
}

/**
 * The start check first, while the running gateway still serves: a config that cannot start is
 * refused and each chat that asked is told. Then the notes are committed (they now say the
 * gateway restarted), the running gateway stops and the new one boots.
 */
async function runRestart(state: HostState, reason: string): Promise<void> {
  const { logger, notes } = state;
  const intents = state.schedule.take();
  const running = state.current;
  const checked = await checkRestart(state);
  if (!checked.ok) {
    const { cause } = checked.error;
    const text = `Restart refused: ${describeIssues(cause.issues)}; still running the previous config.`;
    logger.error({ reason, file: cause.file, issues: cause.issues }, text);
    await notes.refuse(intents, text);
    running?.gateway.wakeRestartNotes();
    return;
  }
  const { loaded } = checked.value;
  // A file changed by hand: the running config is backed up, and what it drops is told to each chat.
  const warning = await handChangeWarning(running?.loaded, loaded, logger);
  const noted = warning === undefined ? intents : intents.map((intent) => ({ ...intent, warning }));
  await notes.commit(noted, path.resolve(loaded.config.stateDir));
  logger.info({ reason }, 'restarting');
  const stopped = running ? await stopWithin(running) : ok(undefined);
  state.current = undefined;
  if (!stopped.ok) {
    // Half stopped (HTTP may be closed, a turn still holds on): nothing can start beside it.
    logger.fatal({ err: stopped.error }, 'the running gateway did not stop; nothing serves');
    state.options.onDown?.(stopped.error);
    return;
  }
  state.restarts += 1;
  state.metrics?.instruments.restarts.inc();
  try {
    await boot(state, loaded, reason);
  } catch (error) {
    await rollBack(state, error, loaded, noted);
  }
}

/**
 * The config options of a start or restart, with the environment read again (the env file may
 * have changed since); the environment is kept for the boot that follows.
 */
function readConfigOptions(state: HostState): LoadConfigOptions {
  const { configOptions, environment } = state.options;
  state.environment = environment?.() ?? configOptions?.environment ?? process.env;
  return { ...configOptions, environment: state.environment };
}

/** The start check of the next config against the running one; a bug in the check refuses. */
function checkRestart(state: HostState): Promise<LoadStartableResult> {
  const running = state.current;
  const check = async () =>
    loadStartable(readConfigOptions(state), {
      running: running && {
        config: running.loaded.config,
        toolpackProblems: running.gateway.toolpackProblems,
      },
      via: 'restart',
      logger: state.checkLogger,
    });
  return check().catch((error: unknown) => {
    // Nothing has stopped yet, so refuse rather than guess.
    state.logger.error({ err: error }, 'the start check failed');
    const message = `the start check failed: ${errorText(error)}`;
    return fail({ cause: new ConfigError('CONFIG_UNSTARTABLE', undefined, [{ path: '', message }]) });
  });
}

/**
 * The check passed and the start failed anyway (a port taken meanwhile, a platform or store
 * gone): the notes committed for the new config must not claim a restart, so each chat that
 * asked is told it failed instead, the file is put back to the last config that started (the
 * failed one kept as a backup, named in the chat), and that config serves again. When even
 * that fails nothing serves: `onDown` (the answers wait in the sentinel for the next start).
 */
async function rollBack(state: HostState, error: unknown, failed: LoadedConfig, intents: RestartIntent[]) {
  const { logger } = state;
  const previous = state.lastStarted;
  const text = `Restart failed: ${errorText(error)}; running the last config that started again.`;
  logger.error({ err: error }, text);
  // The file too, so that the next cold start does not exit on it.
  const restored = await restoreAfterFailedStart(failed, previous, logger);
  await state.notes.refuse(intents, `${text}${restored}`, path.resolve(failed.config.stateDir));
  try {
    if (!previous) throw error;
    await boot(state, previous, `roll-back: ${errorText(error)}`);
  } catch (rollbackError) {
    logger.fatal({ err: rollbackError }, 'the last config that started failed to start too; nothing serves');
    state.options.onDown?.(rollbackError);
  }
}
