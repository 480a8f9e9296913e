import { readAgentInstructions } from '../agents/index.js';
import type { ChannelCredentialCheck } from '../channels/index.js';
import {
  type Config,
  type ConfigEditRequest,
  DEFAULT_CONFIG_PATH,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfig,
} from '../config/index.js';
import { ConfigError, type ConfigIssue, fail, ok, type Result } from '../errors/index.js';
import type { Logger } from '../logging/index.js';
import {
  describeProblem,
  type LoadToolpacksResult,
  loadConfiguredToolpacks,
  type ToolpackProblem,
} from '../toolpacks/index.js';
import { loadAgentSkills } from './agent-skills.js';
import { type ChannelCheckScope, checkChannels } from './check-channels.js';
import { checkHttpHost } from './check-http.js';
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
}

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
  try {
    await readAgentInstructions(config, configPath ?? DEFAULT_CONFIG_PATH);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    issues.push(...error.issues);
  }
  // A bad SKILL.md never stops a start (the other skills still load): reported, like a skipped toolpack.
  warnings.push(...(await loadAgentSkills(config, configPath)).problems);
  const toolpacks = await loadConfiguredToolpacks(config, configPath);
  const known = new Set(options.running?.toolpackProblems.map(describeProblem));
  for (const problem of toolpacks.problems) {
    const text = describeProblem(problem);
    const issue = { path: '/tools/toolpacks', message: `toolpack refused: ${text}` };
    if (options.running && !known.has(text)) issues.push(issue);
    else warnings.push(issue);
  }
  issues.push(...(await checkState(config, options.logger)));
  issues.push(...(await checkHttpHost(config)));
  const channels = await checkChannels(config, {
    scope: options.channels ?? 'changed',
    running: options.running?.config,
    mayUseNewAddresses: options.via !== 'tool',
  });
  issues.push(...channels.issues);
  return { issues, warnings, toolpacks, channels: channels.checks };
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
