// What the session page reads from a session key (`src/records/sessions/session-key.ts` builds them):
// `agent:<agent>:<channel>:<chatType>:<chat>[:thread:<thread>]` for a chat, `…:subagent:<uuid>`
// for a sub-agent, `agent:<agent>:main` for an agent's main session.

export type KeyChannel = 'webchat' | 'slack' | 'discord' | 'subagent';

export const PLATFORM_NAMES = { slack: 'Slack', discord: 'Discord' } as const;

/** The chat a key belongs to; `subagent` for a sub-agent's; undefined for a main session or a key of another shape. */
export function channelOfKey(key: string): KeyChannel | undefined {
  if (key.includes(':subagent:')) return 'subagent';
  const channel = key.split(':')[2];
  return channel === 'webchat' || channel === 'slack' || channel === 'discord' ? channel : undefined;
}

/** The web chat user of a web chat session key (`agent:<id>:webchat:direct:<user>[:…]`). */
export function userOfKey(key: string): string | undefined {
  return /^agent:[^:]+:webchat:direct:([^:]+)/.exec(key)?.[1];
}
