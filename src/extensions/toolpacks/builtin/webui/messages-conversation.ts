import { Type } from '@sinclair/typebox';
import type { LoggedMessage } from './message-log.js';
import { type CoreWebuiEntry, type Metric, metricLines } from './types.js';

const MAX_BODY_CHARS = 12_000;

const ConversationInput = Type.Object(
  {
    agentA: Type.Optional(
      Type.String({ minLength: 1, description: 'First participant id; `user` for the human.' }),
    ),
    agentB: Type.Optional(
      Type.String({ minLength: 1, description: 'Second participant id; `user` for the human.' }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 200,
        default: 40,
        description: 'Most direct messages to show.',
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * `messages.conversation`: the direct messages between two participants (either way), oldest
 * first; without both, the known participants and the recent pairs.
 */
export const messagesConversationEntry: CoreWebuiEntry = {
  id: 'messages.conversation',
  title: 'Agent conversation',
  description: 'Direct messages between two participants, such as user and the coordinator, or two agents.',
  kind: 'panel',
  submitLabel: 'Load conversation',
  inputSchema: ConversationInput,
  async run(sources, input) {
    const agentA = typeof input.agentA === 'string' ? input.agentA : undefined;
    const agentB = typeof input.agentB === 'string' ? input.agentB : undefined;
    const limit = typeof input.limit === 'number' ? input.limit : 40;
    const participants = ['user', ...sources.agents().map((agent) => agent.id)];
    const known = `Known participants: ${participants.join(', ')}`;
    if (agentA === undefined || agentB === undefined) {
      const pairs = sources.messages.pairs(12);
      const lines = pairs.map(
        (pair) => `- ${pair.sender} -> ${pair.recipient}: ${pair.count} messages, last ${pair.lastAt}`,
      );
      const output = ['Choose two participants and refresh this panel.', known, '', 'Recent direct pairs:'];
      return {
        title: 'Agent conversation',
        output: [...output, ...(lines.length > 0 ? lines : ['- none'])].join('\n'),
        metadata: { participants, recentPairs: pairs },
      };
    }
    const messages = sources.messages.between(agentA, agentB, limit);
    const metrics: Metric[] = [
      { label: 'Messages', value: messages.length, description: `${agentA} <-> ${agentB}` },
      { label: 'Participants', value: 2, description: `${agentA}, ${agentB}` },
    ];
    const shown =
      messages.length > 0 ? messages.map(formatMessage) : ['No direct messages found for this pair.'];
    return {
      title: 'Agent conversation',
      output: [`Conversation: ${agentA} <-> ${agentB}`, known, ...metricLines(metrics), ...shown].join(
        '\n\n',
      ),
      metadata: { metrics, messages },
    };
  },
};

function formatMessage(message: LoggedMessage): string {
  const refused = message.refused ? `\nrefused: ${message.refused}` : '';
  const body =
    message.body.length > MAX_BODY_CHARS
      ? `${message.body.slice(0, MAX_BODY_CHARS)}\n\n[truncated ${message.body.length - MAX_BODY_CHARS} chars]`
      : message.body;
  const heading = `## ${message.sentAt} ${message.priority} ${message.sender} -> ${message.recipient}`;
  return `${heading}\nid: ${message.id}${refused}\n\n${body}`;
}
