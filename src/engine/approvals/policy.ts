import { identitiesOf, identitiesWithRole } from '../../base/access/index.js';
import type { Config } from '../../base/config/index.js';
import { causerOf, createAllowlist, type ToolContext } from '../tools/index.js';
import type { ApprovalRecord } from './types.js';

export type ApprovalPolicy = 'ask' | 'auto' | 'deny';

/**
 * The policy for one call: the agent's own table (`agents.<id>.approvals.tools`) over the
 * gateway's (`approvals.tools`); in each, an exact name wins over the longest matching
 * `namespace.*`, and that over `*`. No entry: `ask` when the tool calls this call risky, else `auto`,
 * except in a runtime turn of an agent with `runtimeAs` (`runtimeAs` true): `auto`, as Suzumio's
 * agents run alone; an explicit `ask` or `deny` still holds.
 */
export function resolvePolicy(
  config: Config,
  agentId: string,
  tool: string,
  risky: boolean,
  runtimeAs = false,
): ApprovalPolicy {
  const tables = [config.agents[agentId]?.approvals?.tools ?? {}, config.approvals.tools];
  for (const table of tables) {
    const found = lookup(table, tool);
    if (found) return found;
  }
  return risky && !runtimeAs ? 'ask' : 'auto';
}

/** Whether a call runs in a runtime turn as the agent's `runtimeAs` identity (its sender is it, in the internal chat). */
export function runsAsRuntimeIdentity(
  config: Config,
  agentId: string,
  senderId: string,
  channel: string,
): boolean {
  const runtimeAs = config.agents[agentId]?.runtimeAs;
  return runtimeAs !== undefined && senderId === runtimeAs && channel === 'internal';
}

function lookup(table: Readonly<Record<string, ApprovalPolicy>>, tool: string): ApprovalPolicy | undefined {
  if (Object.hasOwn(table, tool)) return table[tool];
  let best: { length: number; policy: ApprovalPolicy } | undefined;
  for (const [pattern, policy] of Object.entries(table)) {
    if (!pattern.endsWith('.*')) continue;
    const prefix = pattern.slice(0, -1);
    if (tool.startsWith(prefix) && (!best || prefix.length > best.length))
      best = { length: prefix.length, policy };
  }
  return best?.policy ?? (Object.hasOwn(table, '*') ? table['*'] : undefined);
}

/**
 * Who may decide: `approvals.approvers`, else the owners (`owners` and every person whose role is
 * `owner`); a `role:<name>` item is every identity of every person with that role.
 */
export function approversOf(config: Config): string[] {
  const items = config.approvals.approvers ?? ['role:owner'];
  const ids = items.flatMap((item) =>
    item.startsWith('role:') ? identitiesWithRole(config, item.slice('role:'.length)) : [item],
  );
  return [...new Set(ids)];
}

/** Whether `approvals.separateDuties` applies to the tool: `true`, or a list naming it (`ns.*` too). */
export function separatesDuties(config: Config, tool: string): boolean {
  const { separateDuties } = config.approvals;
  return Array.isArray(separateDuties) ? createAllowlist(separateDuties)(tool) : separateDuties;
}

/**
 * The identities that may not decide a call under separation of duties: those of the person whose
 * turn made it (its sender) and of the person who caused it (`chargedTo`), each with every
 * identity their person lists.
 */
export function madeBy(config: Config, context: Pick<ToolContext, 'senderId' | 'chargedTo'>): string[] {
  const ids = [context.senderId, causerOf(context)].flatMap((id) => identitiesOf(config, id));
  return [...new Set(ids)];
}

/**
 * Why a new request of this requester is refused: they have `approvals.maxOpenPerRequester`
 * requests pending already (a non-owner turn's sender, or the user who caused a runtime turn).
 * Owners' turns are not bounded.
 */
export function overRequesterBound(
  open: readonly ApprovalRecord[],
  context: ToolContext,
  limit: number,
): string | undefined {
  if (context.isOwner) return undefined;
  const requester = causerOf(context);
  const pending = open.filter(
    (record) => record.kind === 'tool' && record.status === 'pending' && record.requester === requester,
  );
  if (pending.length < limit) return undefined;
  return (
    `${requester} has ${pending.length} approval requests open (approvals.maxOpenPerRequester is ${limit}): ` +
    'this call was not asked for. Wait until an approver decides one of them, then try again.'
  );
}
