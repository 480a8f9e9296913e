import type { ChatCommand } from './types.js';

const NOT_SET_UP = 'Identity links and pairing are not set up in this gateway.';

/**
 * `/link`: a verified link between two of one person's accounts (docs/identity.md). Anyone may
 * type it: each step only proves the typist's own account.
 */
export const linkCommand: ChatCommand = {
  name: 'link',
  summary: 'Link this account with your account on another platform: /link, then follow the steps.',
  senderOnly: true,
  run({ args, message, sessionKey, route, identity }) {
    if (!identity) return NOT_SET_UP;
    return identity.link(args, message.senderId, { sessionKey, route });
  },
};

/** `/pair list|approve <code> [role]|deny <code>`: an owner lets a paired sender in. */
export const pairCommand: ChatCommand = {
  name: 'pair',
  summary: 'Pairing requests of unknown senders: /pair list, /pair approve <code> [role], /pair deny <code>.',
  ownerOnly: true,
  run({ args, message, sessionKey, route, identity }) {
    if (!identity) return NOT_SET_UP;
    return identity.pair(args, message.senderId, { sessionKey, route });
  },
};
