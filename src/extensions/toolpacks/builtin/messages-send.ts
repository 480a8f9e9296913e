import { Type } from '@sinclair/typebox';
import { StringEnum } from '../../../base/config/index.js';
import {
  type AgentMessage,
  type CommunicationPolicy,
  communicationRefusal,
  type DeliveryRoute,
  PRIORITIES,
  parseRoute,
  type SendOutcome,
} from '../../../base/messages/index.js';
import { causerOf, type Tool } from '../../../engine/tools/index.js';

/** What `messages.send` sends with when the model gives no priority (Suzumio's current default). */
export const MESSAGES_SEND_DEFAULT_PRIORITY = 'P3';

const MessagesSendParameters = Type.Object(
  {
    body: Type.String({ minLength: 1, maxLength: 20000, description: 'The message, in Markdown.' }),
    recipient: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'An agent id (the agent gets the message as a signal), or `user` for the human (posted in their chat with the coordinator).',
      }),
    ),
    channel: Type.Optional(
      Type.String({ minLength: 1, description: 'A named chat route from config `routes`, e.g. `#ops`.' }),
    ),
    priority: StringEnum(PRIORITIES, {
      default: MESSAGES_SEND_DEFAULT_PRIORITY,
      description:
        'P3 (default) routine; P2 work someone waits on; P1 blockers and unblocking messages; P0 emergencies only. P0/P1 wake the recipient together, P2/P3 one at a time.',
    }),
  },
  { additionalProperties: false },
);

export interface MessagesSendOptions {
  send(message: AgentMessage): Promise<SendOutcome>;
  /** Config `routes`: named route → `platform:chat`. */
  routes: Readonly<Record<string, string>>;
  /** Config `communication`: a send it refuses is answered `{ ok: false, reason }` naming the rule. */
  policy: CommunicationPolicy;
}

/**
 * `messages.send`: to an agent or `user`, or a post to a named route. The communication policy is
 * checked before anything is sent; a refusal sends nothing and names the config key.
 */
export function createMessagesSendTool(options: MessagesSendOptions): Tool<typeof MessagesSendParameters> {
  return {
    name: 'messages.send',
    risk: ['messaging'],
    description:
      'Send a message to another agent or the human (`recipient`: an agent id or `user`) or post it to a named chat route (`channel`), not both. The recipient agent is woken with it when idle. Default priority P3.',
    parameters: MessagesSendParameters,
    // A post to a chat other than the one the turn answers asks an approver by default: the
    // people there did not ask for it. One the policy refuses asks nobody: it is refused anyway.
    review: (input, context) => ({
      risky:
        input.channel !== undefined &&
        !sameChat(options.routes[input.channel], context.route) &&
        communicationRefusal(options.policy, { ...input, sender: context.agentId }) === undefined,
    }),
    async execute(input, context) {
      if ((input.recipient === undefined) === (input.channel === undefined)) {
        return { ok: false, reason: 'give exactly one of recipient and channel' };
      }
      const message: AgentMessage = {
        id: `msg_${crypto.randomUUID()}`,
        sender: context.agentId,
        recipient: input.recipient,
        channel: input.channel,
        priority: input.priority,
        body: input.body,
        // The recipient's wake turn is charged to whoever this turn is charged to.
        chargedTo: causerOf(context),
      };
      const refused = communicationRefusal(options.policy, message);
      if (refused !== undefined) return { ok: false, reason: refused };
      const sent = await options.send(message);
      return sent.ok ? { ok: true, id: message.id, priority: message.priority } : sent;
    },
  };
}

/** Whether a named route's target (`slack:C0123`) is the chat a turn answers. */
function sameChat(target: string | undefined, route: DeliveryRoute): boolean {
  const named = target === undefined ? undefined : parseRoute(target);
  return named !== undefined && named.channel === route.channel && named.chatId === route.chatId;
}
