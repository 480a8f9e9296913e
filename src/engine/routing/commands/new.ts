import type { ChatCommand } from './types.js';

export const newCommand: ChatCommand = {
  name: 'new',
  summary: 'Start a fresh session here (stops the running turn; the old transcript is kept in the store).',
  async run({ queues, sessions, sessionKey }) {
    const stopped = queues.stop(sessionKey);
    const fresh = await sessions.reset(sessionKey);
    if (!fresh) return 'This session is already fresh.';
    return `Started a fresh session${stopped ? ' (stopped the running turn)' : ''}.`;
  },
};
