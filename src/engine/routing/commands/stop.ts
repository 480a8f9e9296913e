import type { ChatCommand } from './types.js';

export const stopCommand: ChatCommand = {
  name: 'stop',
  summary: "Stop the turn running in this session, and this session's sub-agents.",
  async run({ agentId, queues, sessionKey, subagents }) {
    const stopped = queues.stop(sessionKey);
    const kill = await subagents.act({ sessionKey, agentId }, { action: 'kill', target: 'all' });
    const killed = kill.status === 'ok' && 'killed' in kill ? kill.killed : 0;
    const turn = stopped ? 'Stopped the running turn.' : 'No turn is running in this session.';
    return killed > 0 ? `${turn} Killed ${killed} sub-agent${killed === 1 ? '' : 's'}.` : turn;
  },
};
