import { clipDiff, parseConfigPath, REVIEW_DIFF_LIMIT } from '../../../base/config/index.js';
import { fail, ok, type Result } from '../../../base/errors/index.js';
import type { GatewayEditRequest } from '../../tools/index.js';
import { describeOutcome } from './config-edit.js';
import { RESCUE_PLAN_TTL_MS } from './rescue-plans.js';
import type { ChatCommand, CommandContext, RescuePort } from './types.js';

const USAGE =
  'Usage: /rescue status | /rescue config diff-last-good | /rescue config revert-last-good | /rescue config set <path> <value> | /rescue disable <slack|discord|toolpack <id>|mcp <name>> | /rescue restart | /rescue leave-safe-mode | /rescue yes <code>';

/** A step `/rescue` plans and runs only after `/rescue yes <code>`. */
export type RescueStep =
  | { kind: 'revert-last-good' }
  | { kind: 'set'; path: string; patch: unknown }
  | { kind: 'disable'; what: string; patch: unknown; replacePaths?: string[] }
  | { kind: 'restart' }
  | { kind: 'leave-safe-mode' };

/**
 * `/rescue` (issue 32 §3): the owner's way back when the agent is broken, answered with no model and
 * no toolpack, in safe mode and normal mode. `status` and `config diff-last-good` only read; every
 * other step answers with a plan and a code, and runs only on `/rescue yes <code>` from the same
 * owner within a minute (a newer plan revokes the older). Config steps go through the config editor
 * (checked, backed up, audited with its base hash); every step is audited with the hashes around it.
 */
export const rescueCommand: ChatCommand = {
  name: 'rescue',
  summary:
    'Owner rescue without a model: status, config diff-last-good | revert-last-good | set <path> <value>, disable <…>, restart, leave-safe-mode, yes <code>.',
  ownerOnly: true,
  async run(context) {
    const rescue = context.rescue;
    if (!rescue) return '/rescue is not available in this gateway.';
    const words = context.args.split(/\s+/).filter((word) => word !== '');
    const [first = '', second = '', ...rest] = words;
    if (first === 'status') return status(rescue);
    if (first === 'yes') return confirm(context, rescue, second);
    if (first === 'config' && second === 'diff-last-good') {
      const diff = await rescue.diffLastGood();
      if (!diff.ok) return `Refused: ${diff.error}`;
      return diff.value === ''
        ? 'The config file is the last config that reached ready.'
        : `\`\`\`diff\n${clipDiff(diff.value, REVIEW_DIFF_LIMIT)}\n\`\`\``;
    }
    const step = parseStep(words, first, second, rest);
    if (!step.ok) return `${step.error}\n${USAGE}`;
    const plan = context.rescuePlans.propose(context.message.senderId, step.value);
    return [
      `Rescue plan ${plan.code}: ${describeStep(step.value)}.`,
      `Reply /rescue yes ${plan.code} within ${RESCUE_PLAN_TTL_MS / 1000} s to run it; a newer plan replaces this one.`,
    ].join('\n');
  },
};

function parseStep(words: string[], first: string, second: string, rest: string[]): Result<RescueStep> {
  if (first === 'restart' && words.length === 1) return ok({ kind: 'restart' });
  if (first === 'leave-safe-mode' && words.length === 1) return ok({ kind: 'leave-safe-mode' });
  if (first === 'config' && second === 'revert-last-good' && rest.length === 0)
    return ok({ kind: 'revert-last-good' });
  if (first === 'config' && second === 'set') return parseSet(rest);
  if (first === 'disable') return parseDisable(second, rest);
  return fail(first === '' ? 'Which rescue step?' : `Unknown rescue step: ${words.join(' ')}`);
}

/** `config set <path> <value>`: the value as JSON when it parses, else as a string. Keys only, no array items. */
function parseSet(rest: string[]): Result<RescueStep> {
  const [path = '', ...valueWords] = rest;
  if (path === '' || valueWords.length === 0) return fail('config set needs a path and a value');
  const parts = parseConfigPath(path);
  if (!parts.ok) return fail(parts.error);
  if (parts.value.length === 0 || parts.value.some((part) => typeof part === 'number'))
    return fail(
      `config set takes an object path (${path} names an array item or the root); use /config patch`,
    );
  const raw = valueWords.join(' ');
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = raw;
  }
  const patch = (parts.value as string[]).reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
  return ok({ kind: 'set', path, patch });
}

function parseDisable(what: string, rest: string[]): Result<RescueStep> {
  if ((what === 'slack' || what === 'discord') && rest.length === 0)
    return ok({ kind: 'disable', what, patch: { channels: { [what]: null } } });
  const [name = '', ...extra] = rest;
  if (what === 'mcp' && name !== '' && extra.length === 0)
    return ok({
      kind: 'disable',
      what: `mcp ${name}`,
      patch: { mcp: { servers: { [name]: { enabled: false } } } },
    });
  // The toolpack list is read when the plan runs (from the file as it is then).
  if (what === 'toolpack' && name !== '' && extra.length === 0)
    return ok({
      kind: 'disable',
      what: `toolpack ${name}`,
      patch: undefined,
      replacePaths: ['tools.toolpacks'],
    });
  return fail('disable takes slack, discord, toolpack <id> or mcp <name>');
}

function describeStep(step: RescueStep): string {
  switch (step.kind) {
    case 'revert-last-good':
      return 'write the last config that reached ready back to the config file (through the config editor: checked, backed up, audited), then restart';
    case 'set':
      return `set ${step.path} to ${JSON.stringify(step.patch === undefined ? null : leaf(step.patch))} (through the config editor), then restart`;
    case 'disable':
      return step.what === 'slack' || step.what === 'discord'
        ? `remove channels.${step.what} from the config file (the editor keeps a backup), then restart`
        : step.what.startsWith('mcp ')
          ? `set mcp.servers.${step.what.slice(4)}.enabled to false, then restart`
          : `remove ${step.what} from tools.toolpacks, then restart`;
    case 'restart':
      return 'restart the gateway';
    case 'leave-safe-mode':
      return 'leave safe mode: forget the unclean starts and restart with every platform, toolpack, MCP server and schedule';
  }
}

function leaf(patch: unknown): unknown {
  let current = patch;
  while (current !== null && typeof current === 'object' && !Array.isArray(current)) {
    const values = Object.values(current);
    if (values.length !== 1) break;
    current = values[0];
  }
  return current;
}

async function status(rescue: RescuePort): Promise<string> {
  const report = await rescue.status();
  const lines = [
    report.safeMode
      ? `Safe mode since ${report.safeMode.since}: ${report.safeMode.reason}. No platform, toolpack, MCP server or schedule runs; /rescue leave-safe-mode ends it.`
      : 'Normal mode.',
    report.uncleanStarts.length > 0
      ? `Recent unclean starts:\n${report.uncleanStarts.map((line) => `- ${line}`).join('\n')}`
      : 'No recent unclean starts.',
    `Config file hash ${report.fileHash.slice(0, 12)}; last config that reached ready: ${
      report.lastGoodHash === undefined ? 'none kept' : report.lastGoodHash.slice(0, 12)
    }${report.lastGoodHash !== undefined && report.lastGoodHash !== report.fileHash ? ' (differs: /rescue config diff-last-good)' : ''}.`,
  ];
  return lines.join('\n');
}

async function fileHash(context: CommandContext): Promise<string> {
  const view = await context.gateway.configGet();
  return view.ok ? view.value.hash : '';
}

/** `/rescue yes <code>`: runs the plan once, audited with the file's hash before and after. */
async function confirm(context: CommandContext, rescue: RescuePort, code: string): Promise<string> {
  const actor = context.message.senderId;
  const taken = context.rescuePlans.take(actor, code);
  if (!taken.ok) return `Refused: ${taken.error}.`;
  const step = taken.value.step as RescueStep;
  const hashBefore = await fileHash(context);
  const outcome = await runStep(context, rescue, step, hashBefore);
  const hashAfter = await fileHash(context);
  const text = outcome.ok ? outcome.value : `Refused: ${outcome.error}`;
  await rescue.audit({ actor, action: describeStepShort(step), hashBefore, hashAfter, outcome: text });
  return text;
}

function describeStepShort(step: RescueStep): string {
  if (step.kind === 'set') return `config set ${step.path}`;
  if (step.kind === 'disable') return `disable ${step.what}`;
  if (step.kind === 'revert-last-good') return 'config revert-last-good';
  return step.kind;
}

async function runStep(
  context: CommandContext,
  rescue: RescuePort,
  step: RescueStep,
  baseHash: string,
): Promise<Result<string>> {
  const { message, sessionKey, route } = context;
  const actor = message.senderId;
  if (step.kind === 'restart') {
    const result = await context.gateway.restart({
      reason: '/rescue restart',
      note: '',
      sessionKey,
      route,
      actor,
    });
    return result.ok ? ok('Restarting; I will post here when I am back.') : fail(result.error);
  }
  if (step.kind === 'leave-safe-mode') {
    const left = await rescue.leaveSafeMode({ actor });
    if (!left.ok) return left;
    const result = await context.gateway.restart({
      reason: '/rescue leave-safe-mode',
      note: '',
      sessionKey,
      route,
      actor,
    });
    return result.ok
      ? ok(`${left.value} Restarting in normal mode; I will post here when I am back.`)
      : ok(`${left.value} Not restarting (${result.error}): normal mode applies at the next start.`);
  }
  const request = (raw: string, replacePaths?: string[]): GatewayEditRequest => ({
    raw,
    baseHash,
    note: `/rescue ${describeStepShort(step)} by ${actor}`,
    sessionKey,
    route,
    actor,
    via: 'command',
    ...(replacePaths ? { replacePaths } : {}),
  });
  if (step.kind === 'revert-last-good') {
    const good = await rescue.lastGood();
    if (!good.ok) return fail(good.error);
    return edited(await context.gateway.configEdit('config.apply', request(good.value.text)));
  }
  if (step.kind === 'disable' && step.what.startsWith('toolpack ')) {
    const id = step.what.slice('toolpack '.length);
    const view = await context.gateway.configGet();
    if (!view.ok) return fail(view.error);
    if (!('config' in view.value))
      return fail(`the config file does not load: ${view.value.errors.join('; ')}`);
    const toolpacks = (view.value.config as { tools?: { toolpacks?: unknown[] } }).tools?.toolpacks ?? [];
    const kept = toolpacks.filter((entry) => entry !== id && (entry as { id?: unknown })?.id !== id);
    if (kept.length === toolpacks.length) return fail(`tools.toolpacks has no toolpack ${id}`);
    const patch = { tools: { toolpacks: kept } };
    return edited(
      await context.gateway.configEdit('config.patch', request(JSON.stringify(patch), step.replacePaths)),
    );
  }
  const patch = step.kind === 'set' || step.kind === 'disable' ? step.patch : undefined;
  return edited(await context.gateway.configEdit('config.patch', request(JSON.stringify(patch))));
}

function edited(result: Awaited<ReturnType<CommandContext['gateway']['configEdit']>>): Result<string> {
  return result.ok ? ok(describeOutcome(result.value)) : fail(result.error);
}
