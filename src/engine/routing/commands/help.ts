import type { ChatCommand } from './types.js';

export const helpCommand: ChatCommand = {
  name: 'help',
  summary: 'List the chat commands.',
  run({ commands, isOwner }) {
    const lines = commands
      .filter((command) => isOwner || !command.ownerOnly)
      .map((command) => `/${command.name} — ${command.summary}${command.ownerOnly ? ' (owners)' : ''}`);
    return `Commands:\n${lines.join('\n')}\nAnything else goes to the agent.`;
  },
};
