import type { ChatCommand } from './types.js';

export const stopCommand: ChatCommand = {
  name: 'stop',
  summary: 'Stop the turn running in this session.',
  run({ lanes, sessionKey }) {
    return lanes.stop(sessionKey) ? 'Stopped the running turn.' : 'No turn is running in this session.';
  },
};
