import { clipDiff, REVIEW_DIFF_LIMIT, STALE_HASH_ERROR } from '../../../base/config/index.js';
import type { ConfigEditOutcome, GatewayEditRequest } from '../../tools/index.js';
import type { CommandContext, CommandReply } from './types.js';

type Subcommand = 'patch' | 'apply';

/**
 * `--from <hash>` before the JSON (the file's hash, or its first 12 or more hex digits): edit only
 * the file with that hash. A held edit is run again as `/config <patch|apply> --from <hash> <json>`,
 * so that what is written once confirmed is the diff the owner was shown, not an edit of a file
 * that changed meanwhile.
 */
const FROM = /^--from\s+([0-9a-f]{12,64})(?:\s+([\s\S]*))?$/;
const FROM_SHOWN = 12;

/**
 * `/config patch` and `/config apply`. An apply (it replaces the whole file) and a patch that
 * removes keys or array items are planned first and held with their diff until the owner confirms
 * (`/confirm <code>` or its button); the confirmed command runs again with `context.confirmed`, from
 * the hash the diff was made from, and edits. Any other patch edits at once.
 */
export async function editConfigCommand(
  context: CommandContext,
  subcommand: Subcommand,
  args: string,
): Promise<CommandReply> {
  const from = FROM.exec(args);
  const raw = (from ? (from[2] ?? '') : args).trim();
  if (raw === '') return `Usage: /config ${subcommand} <json>`;
  const snapshot = await context.gateway.configGet();
  if (!snapshot.ok) return `Refused: ${snapshot.error}`;
  // The editor compares the whole hash again when it edits (and under the lock before it writes).
  if (from?.[1] !== undefined && !snapshot.value.hash.startsWith(from[1])) return CHANGED_SINCE;
  const request: GatewayEditRequest = {
    raw,
    baseHash: snapshot.value.hash,
    note: `/config ${subcommand} by ${context.message.senderId}`,
    sessionKey: context.sessionKey,
    route: context.route,
    actor: context.message.senderId,
    via: 'command',
  };
  if (context.confirmed !== true) {
    const held = await holdIfRisky(context, subcommand, request);
    if (held !== undefined) return held;
  }
  const result = await context.gateway.configEdit(`config.${subcommand}`, request);
  if (!result.ok && from && result.error === STALE_HASH_ERROR) return CHANGED_SINCE;
  if (!result.ok) return `Refused: ${result.error}`;
  return describeOutcome(result.value);
}

const CHANGED_SINCE =
  'Refused: the config file changed after this edit was planned, so its diff is not what it would write now; nothing was written. Run the command again to see the diff from the file as it is.';

/**
 * The reply for a held command (the approvals' message: the code, the diff, a Confirm button), or a
 * refusal; undefined when the edit may go ahead unasked.
 */
async function holdIfRisky(
  context: CommandContext,
  subcommand: Subcommand,
  request: GatewayEditRequest,
): Promise<CommandReply | undefined> {
  const preview = await context.gateway.configPreview(`config.${subcommand}`, request);
  if (!preview.ok) return `Refused: ${preview.error}`;
  const plan = preview.value;
  if (!plan.changed) return NOTHING_TO_CHANGE;
  if (subcommand === 'patch' && plan.removedPaths.length === 0) return undefined;
  const what =
    subcommand === 'apply' ? '/config apply replaces the whole config file' : '/config patch removes keys';
  const changes = plan.changedPaths.filter((changed) => !plan.removedPaths.includes(changed));
  const parts = [
    ...(changes.length > 0 ? [`changes ${changes.join(', ')}`] : []),
    ...(plan.removedPaths.length > 0 ? [`removes ${plan.removedPaths.join(', ')}`] : []),
  ];
  const held = await context.approvals.hold({
    text: `/config ${subcommand} --from ${request.baseHash.slice(0, FROM_SHOWN)} ${request.raw}`,
    senderId: context.message.senderId,
    sessionKey: context.sessionKey,
    agentId: context.agentId,
    route: context.route,
    summary: `${what}: ${parts.join('; ')}`,
    details: clipDiff(plan.diff, REVIEW_DIFF_LIMIT),
  });
  return { text: held.text, ...(held.actions ? { actions: held.actions } : {}) };
}

const NOTHING_TO_CHANGE = 'Nothing to change: the config already says that.';

/** What a written (or unchanged) edit or undo did, and when it applies. */
export function describeOutcome(outcome: ConfigEditOutcome): string {
  if (!outcome.changed) return NOTHING_TO_CHANGE;
  const changed = outcome.changedPaths.length > 0 ? outcome.changedPaths.join(', ') : 'comments only';
  if ('restartNeeded' in outcome) {
    const { reason } = outcome.restart;
    return `Changed ${changed}. Not restarting: ${reason.charAt(0).toLowerCase()}${reason.slice(1, -1)}; the change applies at the next start.`;
  }
  const seconds = Math.round(outcome.restart.delayMs / 100) / 10;
  return `Changed ${changed}. Restarting in ${seconds} s; I will post here when I am back.`;
}
