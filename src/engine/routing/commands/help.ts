import { can } from '../../../base/access/index.js';
import { commandAction } from './command-action.js';
import type { ChatCommand } from './types.js';

export const helpCommand: ChatCommand = {
  name: 'help',
  summary: 'List the chat commands.',
  run({ commands, principal }) {
    const lines = commands
      .filter((command) => can(principal, commandAction(command)).ok)
      .map((command) => `/${command.name} — ${command.summary}${command.ownerOnly ? ' (owners)' : ''}`);
    return `Commands:\n${lines.join('\n')}\nAnything else goes to the agent.`;
  },
};
