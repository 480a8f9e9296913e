import { Type } from '@sinclair/typebox';
import type { Tool } from '../types.js';

const SessionStatusParameters = Type.Object(
  {
    sessionKey: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'Key of one of your sessions (from sessions_list); default: the current session.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const sessionStatusTool: Tool<typeof SessionStatusParameters> = {
  name: 'session_status',
  risk: ['read'],
  description:
    'Show the status of a session of yours (default: this one): whether a run is going, queued messages, transcript length, the model, and how many model rounds have run since the last user message.',
  parameters: SessionStatusParameters,
  readOnly: true,
  async execute(input, context) {
    const key = input.sessionKey ?? context.sessionKey;
    const details = await context.services.sessions.details(key);
    // Another agent's session is reported as unknown: agents only see their own sessions.
    if (!details || details.agentId !== context.agentId)
      return { ok: false, reason: `Unknown session: ${key}` };
    return { ok: true, session: details };
  },
};
