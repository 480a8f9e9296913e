import { parseConfigPath } from '../../../base/config/index.js';
import { editConfigCommand } from './config-edit.js';
import { showChange, showHistory, undoChange } from './config-history.js';
import type { ChatCommand, CommandContext } from './types.js';

const USAGE =
  'Usage: /config get [path] | /config schema <path> | /config patch <json> | /config apply <json> | /config history | /config diff <n> | /config undo [n]';

/**
 * `/config` for owners, without a model. `patch` and `apply` take the current hash themselves
 * (the owner typed the change just now) and may change any path, owners and http included; `apply`
 * and a patch that removes keys or array items show their diff and wait for `/confirm` first.
 * `history`, `diff` and `undo` read the editor's audit log and backups.
 */
export const configCommand: ChatCommand = {
  name: 'config',
  summary:
    'Show or change the gateway config: get [path], schema <path>, patch <json>, apply <json>, history, diff <n>, undo [n].',
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
        return editConfigCommand(context, subcommand, rest.trim());
      case 'history':
        return showHistory(context);
      case 'diff':
        return showChange(context, rest.trim());
      case 'undo':
        return undoChange(context, rest.trim());
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
