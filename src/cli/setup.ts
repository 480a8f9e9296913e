import path from 'node:path';
import { stringify } from 'yaml';
import {
  envFilePath,
  type ModelConfig,
  OPERATOR_ID,
  SENDER_ID_PATTERN,
  writeEnvVariables,
} from '../base/config/index.js';
import { ConfigError } from '../base/errors/index.js';
import { checkChannelCredentials } from '../surfaces/channels/index.js';
import { openConfigEditor } from './config.js';
import { discordInviteUrl } from './discord-invite.js';
import { printProblem } from './output.js';
import { createSlackManifest } from './slack-manifest.js';
import { createTerminalPrompter, type Prompter } from './terminal-prompts.js';

/**
 * `switchboard setup`: a guide in the terminal from nothing to a config that answers. It asks for
 * a model (proved by one call), optionally Slack and Discord (proved by the platform), and the
 * owners (the operator, `webchat:local`, always kept); the secrets go to the env file (0600), the
 * config gets `${NAME}` references only and is written through the config editor (validated and
 * start-checked like any edit). Run again to add a platform: what is configured is kept unless
 * changed. `--non-interactive` takes the answers from flags and the secrets from the environment.
 */
export interface SetupOptions {
  config?: string;
  envFile?: string;
  nonInteractive?: boolean;
  /** openai | anthropic | compatible | keep */
  model?: string;
  modelId?: string;
  baseUrl?: string;
  slack?: boolean;
  discord?: boolean;
  owner?: string[];
  /** Hidden: where Slack's and Discord's APIs are (tests point them at the fakes). */
  slackApiUrl?: string;
  discordApiBase?: string;
}

/** What the guide gathered: the merge patch of the config and the secrets of the env file. */
interface SetupPlan {
  patch: Record<string, unknown>;
  replace: string[];
  secrets: Record<string, string>;
  done: string[];
}

type ModelKind = 'openai' | 'anthropic' | 'compatible' | 'keep';

const MODEL_KINDS: Record<
  Exclude<ModelKind, 'keep'>,
  { label: string; provider: 'openai' | 'anthropic'; model: string; variable: string }
> = {
  openai: { label: 'OpenAI', provider: 'openai', model: 'gpt-4o-mini', variable: 'OPENAI_API_KEY' },
  anthropic: {
    label: 'Anthropic',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    variable: 'ANTHROPIC_API_KEY',
  },
  compatible: {
    label: 'An OpenAI-compatible server (Ollama, vLLM, LM Studio, OpenRouter)',
    provider: 'openai',
    model: 'llama3.1',
    variable: 'MODEL_API_KEY',
  },
};
const OLLAMA_URL = 'http://127.0.0.1:11434/v1';
const OWNER_ID = new RegExp(SENDER_ID_PATTERN);

/** The step the guide is at; each asks, proves and adds to the plan, or fails with a reason. */
interface SetupContext {
  options: SetupOptions;
  prompter: Prompter | undefined;
  /** The file's own config (secrets redacted), `{}` when there is none. */
  current: Record<string, unknown>;
  /** Environment and env file as they are now: a secret already set can be kept. */
  environment: NodeJS.ProcessEnv;
  plan: SetupPlan;
}

export async function runSetup(options: SetupOptions): Promise<void> {
  let opened: Awaited<ReturnType<typeof openConfigEditor>>;
  try {
    opened = await openConfigEditor(options);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return printProblem(error.message);
  }
  if (!('config' in opened.snapshot)) {
    return printProblem(
      `${opened.snapshot.path} does not load; fix it first (npx switchboard doctor says why):\n${opened.snapshot.errors.join('\n')}`,
    );
  }
  const envFile = envFilePath({ envFile: options.envFile });
  const interactive = !options.nonInteractive;
  const prompter = interactive
    ? createTerminalPrompter({
        onInterrupt: () => {
          process.stderr.write('setup stopped; nothing was written\n');
          process.exit(130);
        },
      })
    : undefined;
  const context: SetupContext = {
    options,
    prompter,
    current: opened.snapshot.config,
    environment: opened.environment,
    plan: { patch: {}, replace: [], secrets: {}, done: [] },
  };
  try {
    prompter?.say(
      [
        'Switchboard setup',
        `Writes ${opened.snapshot.path} (through the config editor: validated, nothing else changes) and`,
        `the secrets to ${envFile} (mode 0600; the config names them as \${NAME}). Ctrl-C stops without writing.`,
        '',
      ].join('\n'),
    );
    for (const step of [modelStep, slackStep, discordStep, ownersStep]) {
      const problem = await step(context);
      if (problem !== undefined) return printProblem(problem);
    }
  } catch (error) {
    if (!(error instanceof Error) || !/input ended/.test(error.message)) throw error;
    return printProblem(`setup stopped: ${error.message}; nothing was written`);
  } finally {
    prompter?.close();
  }
  await writePlan(context, envFile, opened);
}

/** The env file first (the editor's validation resolves `${NAME}` from it), then the config. */
async function writePlan(
  context: SetupContext,
  envFile: string,
  opened: Awaited<ReturnType<typeof openConfigEditor>>,
): Promise<void> {
  const { plan } = context;
  const say = (text: string) => process.stdout.write(`${text}\n`);
  const names = Object.keys(plan.secrets);
  if (names.length > 0) {
    await writeEnvVariables(envFile, plan.secrets);
    say(`wrote ${names.join(', ')} to ${envFile} (mode 0600)`);
  }
  if (Object.keys(plan.patch).length === 0) {
    say(`${opened.snapshot.path}: nothing to change`);
  } else {
    // Opened again: the editor validates against the env file just written.
    const { editor, snapshot } = await openConfigEditor(context.options);
    const result = await editor.patch({
      raw: JSON.stringify(plan.patch),
      baseHash: snapshot.hash,
      actor: 'cli',
      via: 'cli',
      note: `switchboard setup: ${plan.done.join(', ')}`,
      replacePaths: plan.replace,
    });
    if (!result.ok) return printProblem(`${opened.snapshot.path} was not written: ${result.error}`);
    if (result.changed) say(`wrote ${result.path}: ${result.changedPaths.join(', ')}`);
    else say(`${result.path}: nothing to change`);
  }
  const relative = (file: string) => path.relative(process.cwd(), file) || file;
  say(
    [
      '',
      'Next:',
      '  npm start                  (or: npx switchboard start) and open the web chat link it prints',
      `  npx pm2 start ecosystem.config.cjs   to run it under pm2 (it reads ${relative(envFile)} itself)`,
      'A gateway already running picks the change up on restart: npx switchboard restart',
    ].join('\n'),
  );
}

/** Which model answers: a new one proved by a call, or the configured one kept. */
async function modelStep(context: SetupContext): Promise<string | undefined> {
  const { prompter, options, plan } = context;
  const models = (context.current.models ?? {}) as Record<string, Record<string, unknown>>;
  const configured = Object.keys(models);
  for (;;) {
    let kind = (options.model ?? (prompter ? undefined : configured.length > 0 ? 'keep' : undefined)) as
      | ModelKind
      | undefined;
    if (kind === undefined && !prompter)
      return 'setup --non-interactive needs --model openai|anthropic|compatible|keep';
    if (kind === undefined && prompter) {
      prompter.say('1. The model');
      const choices = [
        ...(configured.length > 0
          ? [
              {
                label: `Keep the configured model${configured.length > 1 ? 's' : ''} (${configured.map((name) => modelText(name, models[name])).join('; ')})`,
                value: 'keep' as const,
              },
            ]
          : []),
        ...Object.entries(MODEL_KINDS).map(([value, entry]) => ({
          label: entry.label,
          value: value as ModelKind,
        })),
      ];
      kind = await prompter.choose('Which model should answer?', choices, 0);
    }
    if (kind === 'keep') {
      if (configured.length === 0) return '--model keep: the config has no model yet';
      return undefined;
    }
    const entry = MODEL_KINDS[kind as Exclude<ModelKind, 'keep'>];
    if (!entry) return `--model must be openai, anthropic, compatible or keep, not ${JSON.stringify(kind)}`;
    const asked = await askModel(context, kind as Exclude<ModelKind, 'keep'>);
    if (typeof asked === 'string') return asked;
    const { config, secret } = asked;
    prompter?.say('Trying the model (one short call)...');
    const { probeModel } = await import('../host/index.js');
    const proved = await probeModel({
      name: 'default',
      config: { ...config, apiKey: secret?.value } as ModelConfig,
    });
    if (proved.ok) {
      report(context, `ok: ${proved.value}`);
      plan.patch.models = { default: { ...config, ...(secret ? { apiKey: `\${${secret.variable}}` } : {}) } };
      plan.replace.push('models.default');
      if (secret) plan.secrets[secret.variable] = secret.value;
      const agent = typeof context.current.defaultAgent === 'string' ? context.current.defaultAgent : 'main';
      const agents = (context.current.agents ?? {}) as Record<string, Record<string, unknown>>;
      if (agents[agent]?.model === undefined) plan.patch.agents = { [agent]: { model: 'default' } };
      plan.done.push(`model ${config.model}`);
      return undefined;
    }
    const problem = `the model did not answer: ${proved.error}`;
    if (!prompter) return problem;
    prompter.say(`failed: ${problem}`);
    if (!(await prompter.confirm('Try again?', true)))
      return 'setup stopped at the model; nothing was written';
    options.model = undefined;
  }
}

/** The model's id, address and key, asked or from the flags and the environment. */
async function askModel(
  context: SetupContext,
  kind: Exclude<ModelKind, 'keep'>,
): Promise<
  | {
      config: { provider: 'openai' | 'anthropic'; model: string; baseUrl?: string };
      secret?: { variable: string; value: string };
    }
  | string
> {
  const { prompter, options, environment } = context;
  const entry = MODEL_KINDS[kind];
  const known = environment[entry.variable];
  let model = options.modelId ?? entry.model;
  let baseUrl = options.baseUrl ?? (kind === 'compatible' ? OLLAMA_URL : undefined);
  let key = known ?? '';
  if (prompter) {
    if (kind === 'compatible')
      baseUrl = await prompter.ask('Server address (base URL)', { fallback: baseUrl });
    model = await prompter.ask('Model id', { fallback: model });
    const keep = known
      ? ` (Enter keeps ${entry.variable} as it is set now)`
      : kind === 'compatible'
        ? ' (Enter for none)'
        : '';
    key = (await prompter.ask(`API key, typed hidden${keep}`, { secret: true })) || known || '';
  }
  if (baseUrl !== undefined && !/^https?:\/\/\S+$/.test(baseUrl))
    return `the base URL must be an http(s):// address, not ${JSON.stringify(baseUrl)}`;
  if (kind !== 'compatible' && key === '')
    return `the ${entry.label} API key is needed${prompter ? '' : ` (set ${entry.variable} in the environment)`}`;
  return {
    config: { provider: entry.provider, model, ...(baseUrl ? { baseUrl } : {}) },
    ...(key ? { secret: { variable: entry.variable, value: key } } : {}),
  };
}

const modelText = (name: string, model: Record<string, unknown> | undefined) =>
  `${name}: ${String(model?.provider)} ${String(model?.model)}${model?.baseUrl ? ` at ${String(model.baseUrl)}` : ''}`;

/** Slack: the manifest to create the app from, the two tokens, proved by auth.test and apps.connections.open. */
async function slackStep(context: SetupContext): Promise<string | undefined> {
  const { prompter, options, environment, plan } = context;
  const channels = (context.current.channels ?? {}) as Record<string, unknown>;
  const configured = channels.slack !== undefined;
  const wanted = prompter
    ? await prompter.confirm(
        `\n2. Slack (optional)${configured ? ': configured already; set it up again?' : '\nConnect Slack?'}`,
        false,
      )
    : options.slack === true;
  if (!wanted) return undefined;
  let botToken = environment.SLACK_BOT_TOKEN ?? '';
  let appToken = environment.SLACK_APP_TOKEN ?? '';
  for (;;) {
    if (prompter) {
      prompter.say(
        [
          'Create the Slack app from this manifest: https://api.slack.com/apps?new_app=1 → From a manifest → YAML.',
          '(The same as `npx switchboard slack manifest`.)',
          '',
          stringify(createSlackManifest({ mode: 'socket', name: 'Switchboard', command: '/switchboard' }), {
            lineWidth: 0,
          }),
          'Then: Install to Workspace, and copy OAuth & Permissions → Bot User OAuth Token (xoxb-...);',
          'Basic Information → App-Level Tokens → Generate, scope connections:write (xapp-...).',
        ].join('\n'),
      );
      botToken = (await prompter.ask('Bot token (xoxb-..., typed hidden)', { secret: true })) || botToken;
      appToken =
        (await prompter.ask('App-level token (xapp-..., typed hidden)', { secret: true })) || appToken;
    }
    if (!botToken || !appToken) {
      const problem = 'Slack needs the bot token and the app-level token';
      if (!prompter) return `${problem} (set SLACK_BOT_TOKEN and SLACK_APP_TOKEN in the environment)`;
      prompter.say(problem);
      continue;
    }
    const apiUrl = options.slackApiUrl;
    prompter?.say('Asking Slack (auth.test)...');
    const [check] = await checkChannelCredentials({
      slack: { mode: 'socket', botToken, appToken, ...(apiUrl ? { apiUrl } : {}) } as never,
    });
    if (check?.result.ok) {
      report(context, `ok: ${check.result.value}`);
      plan.patch.channels = {
        ...(plan.patch.channels as object),
        slack: {
          botToken: '${SLACK_BOT_TOKEN}',
          appToken: '${SLACK_APP_TOKEN}',
          ...(apiUrl ? { apiUrl } : {}),
        },
      };
      plan.secrets.SLACK_BOT_TOKEN = botToken;
      plan.secrets.SLACK_APP_TOKEN = appToken;
      plan.done.push('Slack');
      return undefined;
    }
    const problem = `Slack refused: ${check?.result.ok === false ? check.result.error : 'no answer'}`;
    if (!prompter) return problem;
    prompter.say(`failed: ${problem}`);
    if (!(await prompter.confirm('Try again?', true))) return undefined;
  }
}

/** Discord: the token (proved by /users/@me), then the invite for the bot it names. */
async function discordStep(context: SetupContext): Promise<string | undefined> {
  const { prompter, options, environment, plan } = context;
  const channels = (context.current.channels ?? {}) as Record<string, unknown>;
  const configured = channels.discord !== undefined;
  const wanted = prompter
    ? await prompter.confirm(
        `\n3. Discord (optional)${configured ? ': configured already; set it up again?' : '\nConnect Discord?'}`,
        false,
      )
    : options.discord === true;
  if (!wanted) return undefined;
  let token = environment.DISCORD_TOKEN ?? '';
  for (;;) {
    if (prompter) {
      prompter.say(
        'Create an application at https://discord.com/developers/applications, then Bot → Reset Token, and switch on Message Content Intent there.',
      );
      token = (await prompter.ask('Bot token (typed hidden)', { secret: true })) || token;
    }
    if (!token) {
      if (!prompter) return 'Discord needs the bot token (set DISCORD_TOKEN in the environment)';
      continue;
    }
    const apiBase = options.discordApiBase;
    prompter?.say('Asking Discord (users/@me)...');
    const [check] = await checkChannelCredentials({
      discord: { token, ...(apiBase ? { apiBase } : {}) } as never,
    });
    if (check?.result.ok) {
      report(context, `ok: ${check.result.value}`);
      const clientId = applicationId(token);
      report(
        context,
        clientId
          ? `Invite the bot to your server: ${discordInviteUrl(clientId)}`
          : 'Invite the bot: npx switchboard discord invite --client-id <Application ID>',
      );
      plan.patch.channels = {
        ...(plan.patch.channels as object),
        discord: { token: '${DISCORD_TOKEN}', ...(apiBase ? { apiBase } : {}) },
      };
      plan.secrets.DISCORD_TOKEN = token;
      plan.done.push('Discord');
      return undefined;
    }
    const problem = `Discord refused: ${check?.result.ok === false ? check.result.error : 'no answer'}`;
    if (!prompter) return problem;
    prompter.say(`failed: ${problem}`);
    if (!(await prompter.confirm('Try again?', true))) return undefined;
  }
}

/** A bot token's first part is its user id in base64, which is the application's id. */
function applicationId(token: string): string | undefined {
  const first = token.replace(/^(Bot|Bearer)\s*/i, '').split('.')[0] ?? '';
  const decoded = Buffer.from(first, 'base64').toString('utf8');
  return /^[0-9]{17,20}$/.test(decoded) ? decoded : undefined;
}

/** Owners: the operator (webchat:local) always, and whoever else is named. */
async function ownersStep(context: SetupContext): Promise<string | undefined> {
  const { prompter, options, plan } = context;
  const current = Array.isArray(context.current.owners)
    ? (context.current.owners as string[])
    : [OPERATOR_ID];
  const others = current.filter((owner) => owner !== OPERATOR_ID);
  let named = options.owner ?? others;
  for (;;) {
    if (prompter) {
      prompter.say(
        [
          '',
          '4. Owners: who may change the config, restart the gateway and run owner-only tools.',
          `${OPERATOR_ID} (you, signed in with the HTTP token: the web chat and the control UI) stays an owner.`,
          'Others by sender id, comma-separated: slack:U0123ABCD (Slack profile → Copy member ID), discord:<user id>, webchat:<user>.',
        ].join('\n'),
      );
      const question =
        others.length > 0
          ? 'Other owners (Enter keeps these; "-" for none)'
          : 'Other owners (Enter for none)';
      const answer = await prompter.ask(question, { fallback: others.join(', ') });
      named =
        answer === '-'
          ? []
          : answer
              .split(',')
              .map((owner) => owner.trim())
              .filter(Boolean);
    }
    const wrong = named.filter((owner) => !OWNER_ID.test(owner));
    if (wrong.length === 0) break;
    const problem = `not a sender id (webchat:<user>, slack:<U…>, discord:<id>): ${wrong.join(', ')}`;
    if (!prompter) return problem;
    prompter.say(problem);
  }
  const owners = [OPERATOR_ID, ...new Set(named.filter((owner) => owner !== OPERATOR_ID))];
  if (JSON.stringify(owners) !== JSON.stringify(current)) {
    plan.patch.owners = owners;
    plan.done.push('owners');
  }
  return undefined;
}

function report(context: SetupContext, text: string): void {
  if (context.prompter) context.prompter.say(text);
  else process.stdout.write(`${text}\n`);
}
