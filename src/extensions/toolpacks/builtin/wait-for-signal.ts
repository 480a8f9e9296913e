import { Type } from '@sinclair/typebox';
import {
  type AgentMessage,
  type CommunicationPolicy,
  communicationRefusal,
  type Priority,
  priorityRank,
  type SendOutcome,
} from '../../../base/messages/index.js';
import type { Tool } from '../../../engine/tools/index.js';

const WaitParameters = Type.Object(
  {
    reason: Type.Optional(Type.String({ maxLength: 500, description: 'What you are waiting for.' })),
    notifyPm: Type.Optional(
      Type.Boolean({
        description:
          "Send the coordinator a message that you are waiting (Suzumio's key). Default: true for every agent but the coordinator. Pass false when you already sent the coordinator your result in this turn.",
      }),
    ),
    pm: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "The coordinator agent to tell (Suzumio's key); default config communication.coordinatorAgent.",
      }),
    ),
  },
  { additionalProperties: false },
);

export interface WaitForSignalOptions {
  /** The path of `messages.send`. */
  send(message: AgentMessage): Promise<SendOutcome>;
  policy: CommunicationPolicy;
  /** The configured agent ids: a coordinator that is not one is not told. */
  agents: readonly string[];
}

/** Suzumio's priority for the waiting note, or the most urgent the policy lets a non-coordinator send. */
const NOTE_PRIORITY: Priority = 'P1';

/**
 * `coordination.wait_for_signal`: ends the turn (a boundary) until a signal or message wakes the
 * agent. As in Suzumio, an agent other than the coordinator tells the coordinator it waits (a P1
 * message `Waiting for future signals.\n\nReason: …`) unless `notifyPm` is false.
 */
export function createWaitForSignalTool(options: WaitForSignalOptions): Tool<typeof WaitParameters> {
  return {
    name: 'coordination.wait_for_signal',
    risk: ['read', 'messaging'],
    description:
      'End your turn until a signal or message arrives for you; you are woken with it. Use it instead of polling, after sending the messages you owe. Tells the coordinator you wait unless notifyPm is false (or you are the coordinator).',
    parameters: WaitParameters,
    boundary: true,
    async execute(input, context) {
      const coordinator = input.pm ?? options.policy.coordinator;
      const notify = (input.notifyPm ?? context.agentId !== coordinator) && context.agentId !== coordinator;
      const base = {
        ok: true,
        status: 'waiting for a signal',
        ...(input.reason ? { reason: input.reason } : {}),
      };
      if (!notify || !options.agents.includes(coordinator)) return base;
      const message: AgentMessage = {
        id: `msg_${crypto.randomUUID()}`,
        sender: context.agentId,
        recipient: coordinator,
        priority: notePriority(options.policy, context.agentId, coordinator),
        body: `Waiting for future signals.\n\nReason: ${input.reason ?? 'Waiting for future signals.'}`,
      };
      const refused = communicationRefusal(options.policy, message);
      if (refused !== undefined) return { ...base, notifyRefused: refused };
      const sent = await options.send(message);
      return sent.ok
        ? { ...base, notifiedAgent: coordinator, messageId: message.id }
        : { ...base, notifyRefused: sent.reason };
    },
  };
}

function notePriority(policy: CommunicationPolicy, sender: string, recipient: string): Priority {
  const limited = policy.restricted && sender !== policy.coordinator && recipient === policy.coordinator;
  return limited && priorityRank(NOTE_PRIORITY) < priorityRank(policy.maxPriority)
    ? policy.maxPriority
    : NOTE_PRIORITY;
}
