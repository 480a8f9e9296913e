import type { ChatCommand } from './types.js';

export const restartCommand: ChatCommand = {
  name: 'restart',
  summary: 'Restart the gateway; the optional note is posted here when it is back.',
  ownerOnly: true,
  async run({ args, gateway, message, route, sessionKey }) {
    const result = await gateway.restart({
      reason: '/restart',
      // Always a note, blank when none was typed: the reason is not a note.
      note: args,
      sessionKey,
      route,
      actor: message.senderId,
    });
    if (!result.ok) return result.error;
    const { delayMs } = result.value;
    return `Restarting in ${Math.round(delayMs / 100) / 10} s; I will post here when I am back.`;
  },
};
