import { type ConfigChange, clipDiff } from '../../../base/config/index.js';
import { describeOutcome } from './config-edit.js';
import type { CommandContext } from './types.js';

/** How many changes `/config history` lists, newest first. */
export const HISTORY_SHOWN = 10;
const PATHS_SHOWN = 6;
/** A diff shown on its own (`/config diff`), split into messages by the channel when long. */
const DIFF_LIMIT = { lines: 200, chars: 12_000 };

/**
 * `/config history`, `/config diff <n>` and `/config undo [n]`: the editor's audit log, numbered by
 * line (a number names the same change for as long as the log is kept), its diffs (secrets
 * redacted by the editor) and the way back through the editor's own pipeline.
 */
export async function showHistory(context: CommandContext): Promise<string> {
  const history = await context.gateway.configHistory();
  if (!history.ok) return `Refused: ${history.error}`;
  const changes = history.value.slice(-HISTORY_SHOWN).reverse();
  if (changes.length === 0) return 'No config change is recorded yet.';
  const total = history.value.length;
  const more = total > changes.length ? ` (the last ${changes.length} of ${total})` : '';
  return [
    `Config changes, newest first${more}; /config diff <n> shows one, /config undo <n> restores the file before it:`,
    ...changes.map(describeChange),
  ].join('\n');
}

export async function showChange(context: CommandContext, args: string): Promise<string> {
  const number = await changeNumber(context, args, 'diff');
  if (typeof number === 'string') return number;
  const found = await context.gateway.configChange(number);
  if (!found.ok) return `Refused: ${found.error}`;
  const { change, diff } = found.value;
  const body =
    diff === ''
      ? '(the file after this change is no longer kept, so its diff cannot be shown)'
      : `\`\`\`diff\n${clipDiff(diff, DIFF_LIMIT)}\n\`\`\``;
  return `${describeChange(change)}\n${body}`;
}

export async function undoChange(context: CommandContext, args: string): Promise<string> {
  const number = await changeNumber(context, args, 'undo');
  if (typeof number === 'string') return number;
  const snapshot = await context.gateway.configGet();
  if (!snapshot.ok) return `Refused: ${snapshot.error}`;
  const history = await context.gateway.configHistory();
  const later = history.ok ? history.value.filter((change) => change.number > number) : [];
  const result = await context.gateway.configUndo(number, {
    baseHash: snapshot.value.hash,
    note: `/config undo ${number} by ${context.message.senderId}`,
    sessionKey: context.sessionKey,
    route: context.route,
    actor: context.message.senderId,
  });
  if (!result.ok) return `Refused: ${result.error}`;
  const also =
    later.length === 0 ? '' : ` This also undoes ${later.map((change) => `#${change.number}`).join(', ')}.`;
  const outcome = describeOutcome(result.value);
  if (!result.value.changed) return `The file is already as it was before change #${number}. ${outcome}`;
  return `Restored the file as it was before change #${number}.${also} ${outcome}`;
}

/**
 * The change number an owner typed, or the newest change when none; a reply (string) explaining
 * what is wrong otherwise.
 */
async function changeNumber(context: CommandContext, args: string, name: string): Promise<number | string> {
  if (args === '') {
    const history = await context.gateway.configHistory();
    if (!history.ok) return `Refused: ${history.error}`;
    return history.value.at(-1)?.number ?? 'No config change is recorded yet.';
  }
  if (!/^[1-9]\d{0,8}$/.test(args)) {
    return `Usage: /config ${name} [n], where n is a change number from /config history`;
  }
  return Number(args);
}

/** `#4 2026-12-01 18:02:11Z config.patch by slack:U1 via command: a, b` */
function describeChange(change: ConfigChange): string {
  const when = change.ts.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  const undoes = change.undoes === undefined ? '' : ` (undoes #${change.undoes})`;
  const shown = change.changedPaths.slice(0, PATHS_SHOWN).join(', ');
  const more =
    change.changedPaths.length > PATHS_SHOWN ? ` and ${change.changedPaths.length - PATHS_SHOWN} more` : '';
  const paths = change.changedPaths.length === 0 ? 'comments only' : `${shown}${more}`;
  return `#${change.number} ${when} ${change.action}${undoes} by ${change.actor} via ${change.via}: ${paths}`;
}
