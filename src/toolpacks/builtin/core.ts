import { Type } from '@sinclair/typebox';
import { StringEnum } from '../../config/index.js';
import {
  type AgentMessage,
  type DeliveryRoute,
  PRIORITIES,
  parseRoute,
  type SendOutcome,
} from '../../messages/index.js';
import type { Tool } from '../../tools/index.js';

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
      default: 'P1',
      description: 'P0 most urgent … P3 least; P0/P1 wake the recipient together, P2/P3 one at a time.',
    }),
  },
  { additionalProperties: false },
);

const WaitParameters = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 500, description: 'What you are waiting for.' })) },
  { additionalProperties: false },
);

/** The `core` toolpack: messages between agents and to chat routes, and waiting for a signal. */
export function createCoreTools(options: {
  send(message: AgentMessage): Promise<SendOutcome>;
  /** Config `routes`: named route → `platform:chat`. */
  routes: Readonly<Record<string, string>>;
}): Tool[] {
  const send: Tool<typeof MessagesSendParameters> = {
    name: 'messages.send',
    description:
      'Send a message to another agent or the human (`recipient`: an agent id or `user`) or post it to a named chat route (`channel`), not both. The recipient agent is woken with it when idle.',
    parameters: MessagesSendParameters,
    // A post to a chat other than the one the turn answers asks an approver by default: the
    // people there did not ask for it.
    review: (input, context) => ({
      risky: input.channel !== undefined && !sameChat(options.routes[input.channel], context.route),
    }),
    async execute(input, context) {
      if ((input.recipient === undefined) === (input.channel === undefined)) {
        return { ok: false, reason: 'give exactly one of recipient and channel' };
      }
      const id = `msg_${crypto.randomUUID()}`;
      const sent = await options.send({
        id,
        sender: context.agentId,
        recipient: input.recipient,
        channel: input.channel,
        priority: input.priority,
        body: input.body,
      });
      return sent.ok ? { ok: true, id } : sent;
    },
  };
  const wait: Tool<typeof WaitParameters> = {
    name: 'coordination.wait_for_signal',
    description:
      'End your turn until a signal or message arrives for you; you are woken with it. Use it instead of polling.',
    parameters: WaitParameters,
    boundary: true,
    execute: (input) => ({
      ok: true,
      status: 'waiting for a signal',
      ...(input.reason ? { reason: input.reason } : {}),
    }),
  };
  return [send, wait] as Tool[];
}

/** Whether a named route's target (`slack:C0123`) is the chat a turn answers. */
function sameChat(target: string | undefined, route: DeliveryRoute): boolean {
  const named = target === undefined ? undefined : parseRoute(target);
  return named !== undefined && named.channel === route.channel && named.chatId === route.chatId;
}
