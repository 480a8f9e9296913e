import type { ChatCommand } from './types.js';

export const whoamiCommand: ChatCommand = {
  name: 'whoami',
  summary: 'Show your sender id, and your person and role.',
  run({ message, principal }) {
    // A sender no person lists reads what it read before roles.
    if (principal.personId === undefined)
      return `You are ${message.senderId} (${principal.role === 'owner' ? 'owner' : 'not an owner'}).`;
    const about = principal.rules.description === undefined ? '' : `: ${principal.rules.description}`;
    return `You are ${principal.personId} (${message.senderId}), role ${principal.role}${about}`;
  },
};
