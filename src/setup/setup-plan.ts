import { OPERATOR_ID, SENDER_ID_PATTERN, writeEnvVariables } from '../base/config/index.js';
import { fail, ok, type Result } from '../base/errors/index.js';
import type { ProvedModel } from './model-proof.js';
import type { ProvedPlatform } from './platform-proofs.js';
import type { SetupRefusal } from './setup-refusal.js';

/** What the steps gathered: the config's merge patch, the secrets of the env file, what each proof said. */
export interface SetupPlan {
  patch: Record<string, unknown>;
  /** Dot paths the patch replaces whole (`models.default`). */
  replace: string[];
  secrets: Record<string, string>;
  /** What changes, for the audit note: `model fake-model`, `Slack`, `owners`. */
  done: string[];
  proofs: { step: 'model' | 'slack' | 'discord'; text: string }[];
}

export function createSetupPlan(): SetupPlan {
  return { patch: {}, replace: [], secrets: {}, done: [], proofs: [] };
}

/**
 * The proved model as `models.default` (replaced whole), and the default agent's model when it
 * has none. `current` is the config file as it is (secrets redacted).
 */
export function addModel(plan: SetupPlan, proved: ProvedModel, current: Record<string, unknown>): void {
  plan.patch.models = { default: proved.entry };
  plan.replace.push('models.default');
  if (proved.secret) plan.secrets[proved.secret.variable] = proved.secret.value;
  const agent = typeof current.defaultAgent === 'string' ? current.defaultAgent : 'main';
  const agents = (current.agents ?? {}) as Record<string, Record<string, unknown>>;
  if (agents[agent]?.model === undefined) plan.patch.agents = { [agent]: { model: 'default' } };
  plan.done.push(`model ${proved.entry.model}`);
  plan.proofs.push({ step: 'model', text: proved.text });
}

/** A proved platform as `channels.<name>`. */
export function addPlatform(plan: SetupPlan, name: 'slack' | 'discord', proved: ProvedPlatform): void {
  plan.patch.channels = { ...(plan.patch.channels as object), [name]: proved.entry };
  Object.assign(plan.secrets, proved.secrets);
  plan.done.push(name === 'slack' ? 'Slack' : 'Discord');
  plan.proofs.push({ step: name, text: proved.text });
}

const SENDER_ID = new RegExp(SENDER_ID_PATTERN);

/**
 * The owners: the operator (`webchat:local`, whoever signs in with the HTTP token) always first,
 * then the others named, each a sender id; changed in the plan only when they differ from the file's.
 */
export function addOwners(
  plan: SetupPlan,
  named: readonly string[],
  current: Record<string, unknown>,
): Result<string[], SetupRefusal> {
  const wrong = named.filter((owner) => !SENDER_ID.test(owner));
  if (wrong.length > 0)
    return fail({
      field: 'owners',
      message: `not a sender id (webchat:<user>, slack:<U…>, discord:<id>): ${wrong.join(', ')}`,
    });
  const owners = [OPERATOR_ID, ...new Set(named.filter((owner) => owner !== OPERATOR_ID))];
  const before = Array.isArray(current.owners) ? current.owners : [OPERATOR_ID];
  if (JSON.stringify(owners) !== JSON.stringify(before)) {
    plan.patch.owners = owners;
    plan.done.push('owners');
  }
  return ok(owners);
}

/** The config edit of a plan, for the config editor of either front end (the shell's or the gateway's). */
export interface SetupEdit {
  raw: string;
  replacePaths: string[];
  note: string;
}

/**
 * Writes a plan: the secrets to the env file first (created 0600; the editor's validation resolves
 * `${NAME}` from it), then the config through `edit`, the caller's config editor, with `${NAME}`
 * references only. Nothing to change is no edit. The answer names the variables written, never
 * their values.
 */
export async function writeSetup<T>(
  plan: SetupPlan,
  options: { envFile: string; edit(edit: SetupEdit): Promise<Result<T>> },
): Promise<Result<{ written: string[]; edited: T | undefined }>> {
  const written = Object.keys(plan.secrets);
  if (written.length > 0) await writeEnvVariables(options.envFile, plan.secrets);
  if (Object.keys(plan.patch).length === 0) return ok({ written, edited: undefined });
  const edited = await options.edit({
    raw: JSON.stringify(plan.patch),
    replacePaths: plan.replace,
    note: `switchboard setup: ${plan.done.join(', ')}`,
  });
  return edited.ok ? ok({ written, edited: edited.value }) : edited;
}
