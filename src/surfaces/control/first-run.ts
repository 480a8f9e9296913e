import { envFilePath, OPERATOR_ID, STALE_HASH_ERROR } from '../../base/config/index.js';
import { fail, ok, type Result } from '../../base/errors/index.js';
import {
  addModel,
  addOwners,
  addPlatform,
  createSetupPlan,
  describeModel,
  MODEL_KINDS,
  type ModelKind,
  proveDiscord,
  proveModel,
  proveSlack,
  type SetupRefusal,
  slackManifestYaml,
  writeSetup,
} from '../../setup/index.js';
import type { SetupAnswer, SetupBody, SetupView } from './contracts.js';
import type { ConfigPort } from './routes/config.js';
import type { SetupFailure, SetupPort } from './routes/setup.js';

/** The variables a setup writes, by step: the view says which are set already (never their values). */
const SETUP_VARIABLES = [
  ...Object.values(MODEL_KINDS).map((kind) => kind.variable),
  'SLACK_BOT_TOKEN',
  'SLACK_APP_TOKEN',
  'DISCORD_TOKEN',
];

/**
 * The Setup page's side of this gateway: `switchboard setup`'s steps (`src/setup`) over the
 * config page's control. Each answer is proved first (the model by one call, Slack and Discord by
 * their APIs), in the terminal guide's order; the first refusal names its field and nothing is
 * written. Then the secrets go to the env file the next start reads (`environment()`'s), and the
 * config is patched through the gateway's editor as an owner's `/config` edit (validated, start
 * checked, audited), which restarts the gateway onto it.
 */
export function createFirstRun(options: {
  control: Pick<ConfigPort, 'configGet' | 'configEdit'>;
  /** The environment the next start reads: the process's over the env file, read again at each call. */
  environment: () => NodeJS.ProcessEnv;
}): SetupPort {
  const { control } = options;
  const current = async (): Promise<Result<{ hash: string; config: Record<string, unknown> }>> => {
    const file = await control.configGet();
    if (!file.ok) return file;
    if (!file.value.config)
      return fail(
        `${file.value.path} does not load; fix it on the Config page first: ${file.value.errors?.join('; ')}`,
      );
    return ok({ hash: file.value.hash, config: file.value.config });
  };
  return {
    async view() {
      const file = await current();
      if (!file.ok) return file;
      const { config, hash } = file.value;
      const environment = options.environment();
      const models = (config.models ?? {}) as Record<string, Record<string, unknown>>;
      const channels = (config.channels ?? {}) as Record<string, unknown>;
      return ok({
        hash,
        modelConfigured: defaultAgentModel(config) !== undefined,
        models: Object.entries(models).map(([name, model]) => ({ name, text: describeModel(name, model) })),
        modelKinds: Object.entries(MODEL_KINDS).map(([kind, info]) => ({
          kind: kind as ModelKind,
          label: info.label,
          model: info.model,
          variable: info.variable,
          ...(info.baseUrl ? { baseUrl: info.baseUrl } : {}),
        })),
        slack: {
          configured: channels.slack !== undefined,
          manifest: slackManifestYaml({ mode: 'socket', name: 'Switchboard', command: '/switchboard' }),
        },
        discord: { configured: channels.discord !== undefined },
        owners: Array.isArray(config.owners) ? (config.owners as string[]) : [OPERATOR_ID],
        operator: OPERATOR_ID,
        envFile: envFilePath({ environment }),
        secretsSet: SETUP_VARIABLES.filter((name) => Boolean(environment[name])),
      } satisfies SetupView);
    },
    async run(body, request) {
      const file = await current();
      if (!file.ok) return file;
      if (file.value.hash !== body.baseHash) return fail(STALE_HASH_ERROR);
      const environment = options.environment();
      const proved = await prove(body, file.value.config, environment);
      if (!proved.ok) return proved;
      const { plan, invite } = proved.value;
      const written = await writeSetup(plan, {
        envFile: envFilePath({ environment }),
        edit: (edit) =>
          control.configEdit('config.patch', {
            ...edit,
            baseHash: body.baseHash,
            via: 'command',
            ...request,
          }),
      });
      if (!written.ok) return written;
      const outcome = written.value.edited;
      return ok({
        proofs: plan.proofs,
        written: written.value.written,
        envFile: envFilePath({ environment }),
        changedPaths: outcome?.changedPaths ?? [],
        ...(invite ? { invite } : {}),
        ...(outcome?.restart ? { restart: outcome.restart } : {}),
        ...(outcome?.restartNeeded ? { restartNeeded: true as const } : {}),
      } satisfies Omit<SetupAnswer, 'note'>);
    },
  };
}

/** Each step's answer proved and added to the plan, in the guide's order; the first refusal ends it. */
async function prove(
  body: SetupBody,
  config: Record<string, unknown>,
  environment: NodeJS.ProcessEnv,
): Promise<Result<{ plan: ReturnType<typeof createSetupPlan>; invite?: string }, SetupFailure>> {
  const plan = createSetupPlan();
  const refused = (error: SetupRefusal) => fail(error);
  if (body.model.kind === 'keep') {
    if (Object.keys((config.models ?? {}) as object).length === 0)
      return refused({ field: 'model.kind', message: 'the config has no model yet to keep; choose one' });
  } else {
    const model = await proveModel(body.model, environment);
    if (!model.ok) return refused(model.error);
    addModel(plan, model.value, config);
  }
  if (body.slack) {
    const slack = await proveSlack(body.slack, environment);
    if (!slack.ok) return refused(slack.error);
    addPlatform(plan, 'slack', slack.value);
  }
  let invite: string | undefined;
  if (body.discord) {
    const discord = await proveDiscord(body.discord, environment);
    if (!discord.ok) return refused(discord.error);
    addPlatform(plan, 'discord', discord.value);
    invite = discord.value.invite;
  }
  const owners = addOwners(plan, body.owners, config);
  if (!owners.ok) return refused(owners.error);
  return ok({ plan, ...(invite ? { invite } : {}) });
}

/** The default agent's model in the file (`agents.<defaultAgent>.model`), if any. */
function defaultAgentModel(config: Record<string, unknown>): unknown {
  const agent = typeof config.defaultAgent === 'string' ? config.defaultAgent : 'main';
  return ((config.agents ?? {}) as Record<string, Record<string, unknown>>)[agent]?.model;
}
