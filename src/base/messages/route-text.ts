import type { DeliveryRoute } from './types.js';

/**
 * The route syntax of config `routes`, the CLI's `--notify` and signal posts: `webchat:<user>`,
 * `slack:<chat>`, `discord:<chat>` → where a post goes; undefined for anything else.
 */
export function parseRoute(target: string): DeliveryRoute | undefined {
  const match = /^(webchat|slack|discord):(.+)$/.exec(target);
  if (!match?.[1] || !match[2]) return undefined;
  const channel = match[1] as DeliveryRoute['channel'];
  return { channel, chatType: channel === 'webchat' ? 'direct' : 'channel', chatId: match[2] };
}
