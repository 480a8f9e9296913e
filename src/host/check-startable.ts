import pTimeout from 'p-timeout';
import { loadAgentSkills } from '../app/index.js';
import {
  type Config,
  type ConfigEditRequest,
  DEFAULT_CONFIG_PATH,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfig,
} from '../base/config/index.js';
import { ConfigError, type ConfigIssue, fail, ok, type Result } from '../base/errors/index.js';
import type { Logger } from '../base/logging/index.js';
import { readAgentInstructions } from '../engine/agents/index.js';
import {
  describeProblem,
  type LoadToolpacksResult,
  loadConfiguredToolpacks,
  type ToolpackProblem,
} from '../extensions/toolpacks/index.js';
import type { ChannelCredentialCheck } from '../surfaces/channels/index.js';
import { type ChannelCheckScope, checkChannels } from './check-channels.js';
import { checkHttpHost, checkHttpPort } from './check-http.js';
import { checkState } from './check-state.js';

/** Who wants to know: an edit (by the model's tool, an owner's command, the shell CLI) or a start. */
export type StartCheckVia = ConfigEditRequest['via'] | 'restart' | 'start' | 'doctor';

/** The gateway that serves now, which the new config would replace. */
export interface RunningGateway {
  config: Config;
  /** Its toolpack problems: reported and skipped already, so they do not refuse an edit. */
  toolpackProblems: readonly ToolpackProblem[];
}

export interface StartCheckOptions {
  /** Undefined for a first start and for `doctor`. */
  running?: RunningGateway | undefined;
  via: StartCheckVia;
  /** Which platforms to ask (default 'changed': those whose connection differs from `running`). */
  channels?: ChannelCheckScope;
  logger: Logger;
  /** How long each step may take before it is an issue (default START_CHECK_STEP_TIMEOUT_MS). */
  stepTimeoutMs?: number;
}

/**
 * How long one step of the check may take: a file that never opens (a FIFO), a directory on a
 * file system that never answers, a platform that never replies must not hold an edit, a restart
 * or `/stop` for ever. Longer than any step's own timeout (the store's 10 s, a platform's calls).
 */
export const START_CHECK_STEP_TIMEOUT_MS = 30_000;

export interface StartCheckReport {
  /** What would stop the start, or take away a channel or toolpack the running gateway has. Each names a JSON path. */
  issues: ConfigIssue[];
  /** What a start goes ahead without (toolpacks it skips, when nothing runs yet or they are skipped already). */
  warnings: ConfigIssue[];
  toolpacks: LoadToolpacksResult;
  channels: ChannelCredentialCheck[];
}

/**
 * The one check of "can this config start": everything a start does short of serving — the
 * agent prompt files, the toolpacks, the state dir, the store, `http.host` being this machine's and (where the connection
 * changed) the channel credentials. The schema and `${ENV}` are the load's (`loadStartable`,
 * or the config editor's own parse). Expected failures are issues, never thrown.
 *
 * Used by the config editor (chat, tool and CLI), `switchboard doctor`, the first start and the
 * host before a restart stops the running gateway. Only an edit through the gateway tool is
 * kept from sending credentials to an address the running config does not use; the others are
 * an owner's own (typed in chat or the shell, or written in the file).
 */
export async function checkStartable(
  config: Config,
  configPath: string | undefined,
  options: StartCheckOptions,
): Promise<StartCheckReport> {
  const issues: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const within = <T>(step: Step<T>) => bounded(step, options.stepTimeoutMs ?? START_CHECK_STEP_TIMEOUT_MS);
  if (options.via === 'start') {
    // A first start only (a restart's port is its own): a taken port ends the check, nothing else matters.
    const port = await within({
      where: '/http/port',
      what: 'trying http.port',
      run: () => checkHttpPort(config),
    });
    if (!port.ok) return stopped(port.error, issues, warnings);
    if (port.value.length > 0) return { issues: port.value, warnings, toolpacks: NO_TOOLPACKS, channels: [] };
  }
  const instructions = await within({
    where: '/agents',
    what: "reading the agents' prompt files",
    run: () => readAgentInstructions(config, configPath ?? DEFAULT_CONFIG_PATH),
  });
  if (!instructions.ok) {
    const { error } = instructions;
    if (error instanceof StepTimedOut) issues.push(error.issue);
    else if (error instanceof ConfigError) issues.push(...error.issues);
    else throw error;
  }
  // A bad SKILL.md never stops a start (the other skills still load): reported, like a skipped toolpack.
  const skills = await within({
    where: '/skills/dirs',
    what: 'reading the skills',
    run: () => loadAgentSkills(config, configPath),
  });
  if (!skills.ok) return stopped(skills.error, issues, warnings);
  warnings.push(...skills.value.problems);
  const loadedToolpacks = await within({
    where: '/tools/toolpacks',
    what: 'loading the toolpacks',
    run: () => loadConfiguredToolpacks(config, configPath),
  });
  if (!loadedToolpacks.ok) return stopped(loadedToolpacks.error, issues, warnings);
  const toolpacks = loadedToolpacks.value;
  const known = new Set(options.running?.toolpackProblems.map(describeProblem));
  for (const problem of toolpacks.problems) {
    const text = describeProblem(problem);
    const issue = { path: '/tools/toolpacks', message: `toolpack refused: ${text}` };
    if (options.running && !known.has(text)) issues.push(issue);
    else warnings.push(issue);
  }
  const state = await within({
    where: '/stateDir',
    what: 'trying the state dir, the store and the log directory',
    run: () => checkState(config, options.logger),
  });
  if (!state.ok) return stopped(state.error, issues, warnings, toolpacks);
  issues.push(...state.value);
  const host = await within({
    where: '/http/host',
    what: 'looking up http.host',
    run: () => checkHttpHost(config),
  });
  if (!host.ok) return stopped(host.error, issues, warnings, toolpacks);
  issues.push(...host.value);
  const channels = await within({
    where: '/channels',
    what: 'asking the chat platforms',
    run: () =>
      checkChannels(config, {
        scope: options.channels ?? 'changed',
        running: options.running?.config,
        mayUseNewAddresses: options.via !== 'tool',
      }),
  });
  if (!channels.ok) return stopped(channels.error, issues, warnings, toolpacks);
  issues.push(...channels.value.issues);
  return { issues, warnings, toolpacks, channels: channels.value.checks };
}

/** One step of the check: what it does, the path an issue names when it does not end, and the work. */
interface Step<T> {
  where: string;
  what: string;
  run(): Promise<T>;
}

/** A step that did not end in time: an issue naming it. */
class StepTimedOut {
  constructor(readonly issue: ConfigIssue) {}
}

/**
 * The step's value, its error, or a StepTimedOut once `milliseconds` pass (the work itself may
 * go on, a thread of libuv's pool blocked: it cannot be cancelled, only no longer waited for).
 */
async function bounded<T>(step: Step<T>, milliseconds: number): Promise<Result<T, unknown>> {
  const seconds = Math.round(milliseconds / 100) / 10;
  const timedOut = new StepTimedOut({
    path: step.where,
    message: `${step.what} did not finish within ${seconds} s`,
  });
  try {
    return ok(await pTimeout(step.run(), { milliseconds, fallback: () => Promise.reject(timedOut) }));
  } catch (error) {
    return fail(error);
  }
}

const NO_TOOLPACKS: LoadToolpacksResult = { toolpacks: [], builtins: [], problems: [] };

/** The report when a step failed: a timeout is one more issue (the later steps are not tried); anything else is a bug and thrown. */
function stopped(
  error: unknown,
  issues: ConfigIssue[],
  warnings: ConfigIssue[],
  toolpacks: LoadToolpacksResult = NO_TOOLPACKS,
): StartCheckReport {
  if (!(error instanceof StepTimedOut)) throw error;
  return { issues: [...issues, error.issue], warnings, toolpacks, channels: [] };
}

/** A config that loaded and passed the start check. */
export interface StartableConfig {
  loaded: LoadedConfig;
  report: StartCheckReport;
}

/**
 * Why a config cannot start: `cause` is the load's own error (parse, schema, env), without a
 * loaded config; or one naming the file and the check's issues, with the config and the report.
 */
export type UnstartableConfig =
  | { cause: ConfigError; loaded: LoadedConfig; report: StartCheckReport }
  | { cause: ConfigError; loaded?: undefined; report?: undefined };

export type LoadStartableResult = Result<StartableConfig, UnstartableConfig>;

/** Loads the config (schema and `${ENV}`) and checks it can start; `ok` when no issue was found. */
export async function loadStartable(
  loadOptions: LoadConfigOptions | undefined,
  options: StartCheckOptions,
): Promise<LoadStartableResult> {
  let loaded: LoadedConfig;
  try {
    loaded = await loadConfig(loadOptions);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return fail({ cause: error });
  }
  const report = await checkStartable(loaded.config, loaded.path, options);
  if (report.issues.length > 0) {
    const cause = new ConfigError('CONFIG_UNSTARTABLE', loaded.path, report.issues);
    return fail({ cause, loaded, report });
  }
  return ok({ loaded, report });
}

/** `/store/url: cannot connect …; /stateDir: …` — the issues on one line, for a chat or a log. */
export function describeIssues(issues: readonly ConfigIssue[]): string {
  return issues.map((issue) => `${issue.path || '/'}: ${issue.message}`).join('; ');
}
