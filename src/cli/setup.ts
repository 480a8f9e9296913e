import path from 'node:path';
import { envFilePath, OPERATOR_ID } from '../base/config/index.js';
import { ConfigError, fail, ok } from '../base/errors/index.js';
import {
  addModel,
  addOwners,
  addPlatform,
  createSetupPlan,
  type DiscordAnswer,
  describeModel,
  MODEL_KINDS,
  type ModelAnswer,
  type ModelKind,
  proveDiscord,
  proveModel,
  proveSlack,
  type SetupPlan,
  type SlackAnswer,
  slackManifestYaml,
  writeSetup,
} from '../setup/index.js';
import { openConfigEditor } from './config.js';
import { printProblem } from './output.js';
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

type ModelChoice = ModelKind | 'keep';

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
    plan: createSetupPlan(),
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
  const say = (text: string) => process.stdout.write(`${text}\n`);
  const result = await writeSetup(context.plan, {
    envFile,
    edit: async (edit) => {
      // Opened again: the editor validates against the env file just written.
      const { editor, snapshot } = await openConfigEditor(context.options);
      const written = await editor.patch({
        ...edit,
        baseHash: snapshot.hash,
        actor: 'cli',
        via: 'cli',
      });
      return written.ok ? ok(written) : fail(written.error);
    },
  });
  if (result.ok && result.value.written.length > 0)
    say(`wrote ${result.value.written.join(', ')} to ${envFile} (mode 0600)`);
  if (!result.ok) return printProblem(`${opened.snapshot.path} was not written: ${result.error}`);
  const edited = result.value.edited;
  if (edited?.changed) say(`wrote ${edited.path}: ${edited.changedPaths.join(', ')}`);
  else say(`${edited?.path ?? opened.snapshot.path}: nothing to change`);
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
      | ModelChoice
      | undefined;
    if (kind === undefined && !prompter)
      return 'setup --non-interactive needs --model openai|anthropic|compatible|keep';
    if (kind === undefined && prompter) {
      prompter.say('1. The model');
      const choices = [
        ...(configured.length > 0
          ? [
              {
                label: `Keep the configured model${configured.length > 1 ? 's' : ''} (${configured.map((name) => describeModel(name, models[name])).join('; ')})`,
                value: 'keep' as const,
              },
            ]
          : []),
        ...Object.entries(MODEL_KINDS).map(([value, entry]) => ({
          label: entry.label,
          value: value as ModelChoice,
        })),
      ];
      kind = await prompter.choose('Which model should answer?', choices, 0);
    }
    if (kind === 'keep') {
      if (configured.length === 0) return '--model keep: the config has no model yet';
      return undefined;
    }
    if (kind === undefined || !(kind in MODEL_KINDS))
      return `--model must be openai, anthropic, compatible or keep, not ${JSON.stringify(kind)}`;
    const answer = await askModel(context, kind as ModelKind);
    prompter?.say('Trying the model (one short call)...');
    const proved = await proveModel(answer, context.environment);
    if (proved.ok) {
      report(context, `ok: ${proved.value.text}`);
      addModel(plan, proved.value, context.current);
      return undefined;
    }
    const problem = proved.error.message;
    if (!prompter)
      return /is needed$/.test(problem)
        ? `${problem} (set ${MODEL_KINDS[kind as ModelKind].variable} in the environment)`
        : problem;
    prompter.say(`failed: ${problem}`);
    if (!(await prompter.confirm('Try again?', true)))
      return 'setup stopped at the model; nothing was written';
    options.model = undefined;
  }
}

/** The model's id, address and key, asked or from the flags (the key then from the environment). */
async function askModel(context: SetupContext, kind: ModelKind): Promise<ModelAnswer> {
  const { prompter, options, environment } = context;
  const entry = MODEL_KINDS[kind];
  let model = options.modelId ?? entry.model;
  let baseUrl = options.baseUrl ?? entry.baseUrl;
  let apiKey: string | undefined;
  if (prompter) {
    if (kind === 'compatible')
      baseUrl = await prompter.ask('Server address (base URL)', { fallback: baseUrl });
    model = await prompter.ask('Model id', { fallback: model });
    const keep = environment[entry.variable]
      ? ` (Enter keeps ${entry.variable} as it is set now)`
      : kind === 'compatible'
        ? ' (Enter for none)'
        : '';
    apiKey = await prompter.ask(`API key, typed hidden${keep}`, { secret: true });
  }
  return { kind, model, baseUrl, apiKey };
}

/** Slack: the manifest to create the app from, the two tokens, proved by auth.test and apps.connections.open. */
async function slackStep(context: SetupContext): Promise<string | undefined> {
  const { prompter, options, plan } = context;
  const channels = (context.current.channels ?? {}) as Record<string, unknown>;
  const configured = channels.slack !== undefined;
  const wanted = prompter
    ? await prompter.confirm(
        `\n2. Slack (optional)${configured ? ': configured already; set it up again?' : '\nConnect Slack?'}`,
        false,
      )
    : options.slack === true;
  if (!wanted) return undefined;
  for (;;) {
    let answer: SlackAnswer = { apiUrl: options.slackApiUrl };
    if (prompter) {
      prompter.say(
        [
          'Create the Slack app from this manifest: https://api.slack.com/apps?new_app=1 → From a manifest → YAML.',
          '(The same as `npx switchboard slack manifest`.)',
          '',
          slackManifestYaml({ mode: 'socket', name: 'Switchboard', command: '/switchboard' }),
          'Then: Install to Workspace, and copy OAuth & Permissions → Bot User OAuth Token (xoxb-...);',
          'Basic Information → App-Level Tokens → Generate, scope connections:write (xapp-...).',
        ].join('\n'),
      );
      answer = {
        ...answer,
        botToken: await prompter.ask('Bot token (xoxb-..., typed hidden)', { secret: true }),
        appToken: await prompter.ask('App-level token (xapp-..., typed hidden)', { secret: true }),
      };
    }
    prompter?.say('Asking Slack (auth.test)...');
    const proved = await proveSlack(answer, context.environment);
    if (proved.ok) {
      report(context, `ok: ${proved.value.text}`);
      addPlatform(plan, 'slack', proved.value);
      return undefined;
    }
    const problem = proved.error.message;
    if (!prompter)
      return `${problem}${/needs/.test(problem) ? ' (set SLACK_BOT_TOKEN and SLACK_APP_TOKEN in the environment)' : ''}`;
    prompter.say(`failed: ${problem}`);
    if (!(await prompter.confirm('Try again?', true))) return undefined;
  }
}

/** Discord: the token (proved by /users/@me), then the invite for the bot it names. */
async function discordStep(context: SetupContext): Promise<string | undefined> {
  const { prompter, options, plan } = context;
  const channels = (context.current.channels ?? {}) as Record<string, unknown>;
  const configured = channels.discord !== undefined;
  const wanted = prompter
    ? await prompter.confirm(
        `\n3. Discord (optional)${configured ? ': configured already; set it up again?' : '\nConnect Discord?'}`,
        false,
      )
    : options.discord === true;
  if (!wanted) return undefined;
  for (;;) {
    let answer: DiscordAnswer = { apiBase: options.discordApiBase };
    if (prompter) {
      prompter.say(
        'Create an application at https://discord.com/developers/applications, then Bot → Reset Token, and switch on Message Content Intent there.',
      );
      answer = { ...answer, token: await prompter.ask('Bot token (typed hidden)', { secret: true }) };
    }
    prompter?.say('Asking Discord (users/@me)...');
    const proved = await proveDiscord(answer, context.environment);
    if (proved.ok) {
      report(context, `ok: ${proved.value.text}`);
      report(
        context,
        proved.value.invite
          ? `Invite the bot to your server: ${proved.value.invite}`
          : 'Invite the bot: npx switchboard discord invite --client-id <Application ID>',
      );
      addPlatform(plan, 'discord', proved.value);
      return undefined;
    }
    const problem = proved.error.message;
    if (!prompter)
      return `${problem}${/needs/.test(problem) ? ' (set DISCORD_TOKEN in the environment)' : ''}`;
    prompter.say(`failed: ${problem}`);
    if (!(await prompter.confirm('Try again?', true))) return undefined;
  }
}

/** Owners: the operator (webchat:local) always, and whoever else is named. */
async function ownersStep(context: SetupContext): Promise<string | undefined> {
  const { prompter, options, plan } = context;
  const current = Array.isArray(context.current.owners) ? (context.current.owners as string[]) : [];
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
    const added = addOwners(plan, named, context.current);
    if (added.ok) return undefined;
    if (!prompter) return added.error.message;
    prompter.say(added.error.message);
  }
}

function report(context: SetupContext, text: string): void {
  if (context.prompter) context.prompter.say(text);
  else process.stdout.write(`${text}\n`);
}
