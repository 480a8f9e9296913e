import { Type } from '@sinclair/typebox';
import type { SubagentsActionInput } from '../subagents-port.js';
import { causerOf } from '../turn-scope.js';
import type { Tool } from '../types.js';

const SubagentsParameters = Type.Object(
  {
    // A string, not an enum: an unknown action is answered `Unsupported action.` naming the allowed ones.
    action: Type.Optional(
      Type.String({
        default: 'list',
        description:
          'list (default): your active sub-agents and those that ended recently, numbered; kill: stop one (and its own sub-agents) or all; steer: send one a message.',
      }),
    ),
    target: Type.Optional(
      Type.String({
        description:
          'kill / steer: which sub-agent. `last` (the most recently started), its number in the list, its label or a label prefix (case-insensitive), a run id prefix, or its session key. kill also takes `all`.',
      }),
    ),
    // No maxLength: an over-long message gets a readable error naming its length instead.
    message: Type.Optional(
      Type.String({
        description: 'steer: the message for the sub-agent, at most 4000 characters.',
      }),
    ),
    recentMinutes: Type.Optional(
      Type.Number({
        description:
          'How far back ended sub-agents count as recent (list, and the numbers kill / steer accept): minutes, 1 to 1440, default 30.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** Manages the caller session's own children; results are `{ status, action, …, text }` JSON. */
export const subagentsTool: Tool<typeof SubagentsParameters> = {
  name: 'subagents',
  risk: ['read', 'write'],
  requires: ['spawn-depth'],
  description:
    'List, kill, or steer the sub-agents this session spawned with sessions_spawn. list shows active ones and those that ended in the last `recentMinutes`, numbered. kill stops a sub-agent and its own sub-agents (`target: "all"` stops every one). steer sends a message to a sub-agent: a running one reads it before its next step, an ended one starts a new turn with it. Name the target as `last`, the number from list, its label or a label prefix, a run id prefix, or its session key. You only ever see and manage your own sub-agents.',
  parameters: SubagentsParameters,
  execute(input, context) {
    const caller = {
      sessionKey: context.sessionKey,
      agentId: context.agentId,
      runId: context.runId,
      // A steer that restarts an ended child makes a run charged to whoever this turn is charged to.
      chargedTo: causerOf(context),
    };
    const action = input.action as SubagentsActionInput['action'];
    return context.services.subagents.act(caller, { ...input, action });
  },
};
