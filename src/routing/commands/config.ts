import { parseConfigPath } from '../../config/index.js';
import type { ChatCommand, CommandContext } from './types.js';

const USAGE =
  'Usage: /config get [path] | /config schema <path> | /config patch <json> | /config apply <json>';

/**
 * `/config` for owners, without a model. `patch` and `apply` take the current hash themselves
 * (the owner typed the change just now) and may change any path, owners and http included.
 */
export const configCommand: ChatCommand = {
  name: 'config',
  summary: 'Show or change the gateway config: get [path], schema <path>, patch <json>, apply <json>.',
  ownerOnly: true,
  async run(context) {
    const [, subcommand = '', rest = ''] = /^(\S*)\s*([\s\S]*)$/.exec(context.args) ?? [];
    switch (subcommand) {
      case 'get':
        return showConfig(context, rest.trim());
      case 'schema': {
        const lookup = context.gateway.schemaLookup(rest.trim());
        return lookup.ok ? code(lookup.value) : `Refused: ${lookup.error}`;
      }
      case 'patch':
      case 'apply':
        return edit(context, subcommand, rest.trim());
      default:
        return USAGE;
    }
  },
};

async function showConfig(context: CommandContext, path: string): Promise<string> {
  const snapshot = await context.gateway.configGet();
  if (!snapshot.ok) return `Refused: ${snapshot.error}`;
  const view = snapshot.value;
  const { hash, path: file } = view;
  if (!('config' in view)) {
    return `${file} (hash ${hash}) does not load, so it is not shown:\n${view.errors.join('\n')}`;
  }
  const { config } = view;
  if (path === '') return `${file} (hash ${hash})\n${code(config)}`;
  const parsed = parseConfigPath(path);
  if (!parsed.ok) return `Refused: ${parsed.error}`;
  const value = valueAt(config, parsed.value);
  if (value !== undefined) return `${path}:\n${code(value)}`;
  // Not in the file: a path the schema knows has a default; any other is named as unknown.
  const known = context.gateway.schemaLookup(path);
  return known.ok ? `${path} is not set in ${file} (its default applies).` : `Refused: ${known.error}`;
}

async function edit(context: CommandContext, subcommand: 'patch' | 'apply', raw: string): Promise<string> {
  if (raw === '') return `Usage: /config ${subcommand} <json>`;
  const snapshot = await context.gateway.configGet();
  if (!snapshot.ok) return `Refused: ${snapshot.error}`;
  const result = await context.gateway.configEdit(`config.${subcommand}`, {
    raw,
    baseHash: snapshot.value.hash,
    note: `/config ${subcommand} by ${context.message.senderId}`,
    sessionKey: context.sessionKey,
    route: context.route,
    actor: context.message.senderId,
    via: 'command',
  });
  if (!result.ok) return `Refused: ${result.error}`;
  const outcome = result.value;
  if (!outcome.changed) return 'Nothing to change: the config already says that.';
  if ('restartNeeded' in outcome) {
    const { reason } = outcome.restart;
    return `Changed ${outcome.changedPaths.join(', ')}. Not restarting: ${reason.charAt(0).toLowerCase()}${reason.slice(1, -1)}; the change applies at the next start.`;
  }
  const seconds = Math.round(outcome.restart.delayMs / 100) / 10;
  return `Changed ${outcome.changedPaths.join(', ')}. Restarting in ${seconds} s; I will post here when I am back.`;
}

/**
 * The value at parsed path parts in a plain JSON value: own keys only, so `__proto__`,
 * `constructor` or `toString` never resolve to what every object inherits.
 */
function valueAt(value: unknown, parts: readonly (string | number)[]): unknown {
  let current = value;
  for (const part of parts) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string | number, unknown>)[part];
  }
  return current;
}

function code(value: unknown): string {
  return `\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\``;
}
