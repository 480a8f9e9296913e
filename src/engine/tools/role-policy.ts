import { type Action, can } from '../../base/access/index.js';
import { OWNER_ONLY_REFUSAL, type ToolPolicy } from './policy.js';
import { riskOf } from './risk.js';
import type { Tool } from './types.js';

/** The `can` question for a tool, or one action of it. */
export function toolAction(tool: Tool, action?: string): Action {
  return {
    kind: 'tool',
    name: tool.name,
    risk: riskOf(tool),
    ...(tool.ownerOnly ? { ownerOnly: true } : {}),
    ...(action === undefined ? {} : { action }),
  };
}

/** Why this turn may not see or call the tool (naming the role), or undefined when it may. */
export function roleRefusal(policy: ToolPolicy, tool: Tool, action?: string): string | undefined {
  const { principal } = policy;
  if (!principal) return tool.ownerOnly && !policy.isOwner ? OWNER_ONLY_REFUSAL : undefined;
  const verdict = can(principal, toolAction(tool, action));
  if (verdict.ok) return undefined;
  return `Tool ${tool.name} refused: ${verdict.error}.`;
}
