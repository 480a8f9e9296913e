import type { DeliveryRoute } from '../messages/index.js';

/** `webchat:<user>`, `slack:<channel>`, `discord:<channel>` → where a post goes. */
export function parseRoute(target: string): DeliveryRoute | undefined {
  const match = /^(webchat|slack|discord):(.+)$/.exec(target);
  if (!match?.[1] || !match[2]) return undefined;
  const channel = match[1] as DeliveryRoute['channel'];
  return { channel, chatType: channel === 'webchat' ? 'direct' : 'channel', chatId: match[2] };
}
