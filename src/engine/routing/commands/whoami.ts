import type { ChatCommand } from './types.js';

export const whoamiCommand: ChatCommand = {
  name: 'whoami',
  summary: 'Show your sender id and whether you are an owner.',
  run({ message, isOwner }) {
    return `You are ${message.senderId} (${isOwner ? 'owner' : 'not an owner'}).`;
  },
};
