import { Type } from '@sinclair/typebox';
import { StringEnum } from '../../../../base/config/index.js';
import { PRIORITIES, type Priority, USER_RECIPIENT } from '../../../../base/messages/index.js';
import { ToolpackInputError } from '../../input-error.js';
import { type CoreWebuiEntry, type Metric, metricLines } from './types.js';

const SendInput = Type.Object(
  {
    sender: Type.Optional(
      Type.String({
        minLength: 1,
        default: USER_RECIPIENT,
        description: 'Sender id: `user` for the human, or an agent id.',
      }),
    ),
    recipient: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'An agent id, or `user`. Empty (and no channel): the coordinator agent.',
      }),
    ),
    channel: Type.Optional(
      Type.String({ minLength: 1, description: 'A named chat route from config `routes`, e.g. `#ops`.' }),
    ),
    priority: Type.Optional(
      StringEnum(PRIORITIES, { default: 'P2', description: 'P0 most urgent … P3 least.' }),
    ),
    body: Type.String({ minLength: 1, maxLength: 20000, description: 'The message, in Markdown.' }),
  },
  { additionalProperties: false },
);

/**
 * `messages.send` (WebUI): a message from the human (or on an agent's behalf) to an agent, `user`
 * or a route, through the same send as the tool, so it wakes the agent the same way. Without a
 * recipient or channel it goes to the coordinator agent (else the first agent), as in Suzumio.
 */
export const messagesSendEntry: CoreWebuiEntry = {
  id: 'messages.send',
  title: 'Send agent message',
  description:
    'Send a message to an agent or a route. It is delivered like an agent’s messages.send (an idle agent is woken with it).',
  kind: 'action',
  submitLabel: 'Send message',
  inputSchema: SendInput,
  async run(sources, input) {
    const agents = sources.agents().map((agent) => agent.id);
    const sender = String(input.sender ?? USER_RECIPIENT);
    if (sender !== USER_RECIPIENT && !agents.includes(sender)) {
      throw refusal('/sender', `${sender} is neither user nor an agent (agents: ${agents.join(', ')})`);
    }
    const channel = typeof input.channel === 'string' ? input.channel : undefined;
    let recipient = typeof input.recipient === 'string' ? input.recipient : undefined;
    if (recipient !== undefined && channel !== undefined) {
      throw refusal('/channel', 'give a recipient or a channel, not both');
    }
    if (channel !== undefined && !sources.routes.includes(channel)) {
      const known = sources.routes.join(', ') || 'none';
      throw refusal('/channel', `unknown route ${channel} (routes: ${known})`);
    }
    if (recipient === undefined && channel === undefined) {
      recipient = agents.includes(sources.coordinatorAgent) ? sources.coordinatorAgent : agents[0];
    }
    const priority = (input.priority ?? 'P2') as Priority;
    const body = String(input.body);
    const id = `msg_${crypto.randomUUID()}`;
    const sent = await sources.send({ id, sender, recipient, channel, priority, body });
    if (!sent.ok) throw refusal(channel === undefined ? '/recipient' : '/channel', sent.reason);
    const target = channel ?? recipient ?? 'nobody';
    const metrics: Metric[] = [
      { label: 'Priority', value: priority },
      { label: 'Body chars', value: body.length },
    ];
    return {
      title: 'message sent',
      output: [
        `Message sent: ${id}`,
        `Route: ${sender} -> ${target}`,
        ...metricLines(metrics),
        '',
        body,
      ].join('\n'),
      metadata: { metrics, messageId: id, message: { id, sender, recipient, channel, priority, body } },
    };
  },
};

/** The handler's refusal of its input: the HTTP API answers it 400 with the field's pointer as `path`. */
function refusal(path: string, message: string): ToolpackInputError {
  return new ToolpackInputError(`input ${path}: ${message}`, { statusCode: 400, path });
}
