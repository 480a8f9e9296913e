import { Type } from '@sinclair/typebox';
import type { Tool } from '../types.js';

const SessionsListParameters = Type.Object(
  {
    limit: Type.Integer({
      minimum: 1,
      maximum: 100,
      default: 20,
      description: 'How many sessions to return, most recently active first.',
    }),
  },
  { additionalProperties: false },
);

/** The sessions of the calling agent: one per chat, thread or DM it answers in. */
export const sessionsListTool: Tool<typeof SessionsListParameters> = {
  name: 'sessions_list',
  risk: ['read'],
  description:
    'List the chat sessions you (this agent) answer in: session key, channel, status (idle, queued, running), transcript length and last activity, most recent first.',
  parameters: SessionsListParameters,
  readOnly: true,
  async execute(input, context) {
    const sessions = await context.services.sessions.list({ agentId: context.agentId, limit: input.limit });
    // The model-facing list has no session id (session_status shows it): its JSON stays as it was.
    const shown = sessions.map(({ sessionId: _sessionId, ...session }) => session);
    return { ok: true, total: shown.length, sessions: shown };
  },
};
