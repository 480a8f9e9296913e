import type { Result } from '../../base/errors/index.js';
import type { DiscordConfig } from './discord/index.js';
import type { SlackConfig } from './slack/index.js';

/** One platform's answer: who the bot is (the value), or why it cannot connect (the error, naming the config field). */
export interface ChannelCredentialCheck {
  channel: 'slack' | 'discord';
  result: Result<string, string>;
}

/**
 * Asks the given platforms, in parallel, whether they accept the configured tokens, without
 * connecting. Each check gives up after 10 s and never throws; a platform left out is not asked
 * (nor loaded: see platforms.ts).
 */
export function checkChannelCredentials(channels: {
  slack?: SlackConfig | undefined;
  discord?: DiscordConfig | undefined;
}): Promise<ChannelCredentialCheck[]> {
  const { slack, discord } = channels;
  return Promise.all([
    ...(slack
      ? [
          import('./slack/index.js')
            .then(({ checkSlackCredentials }) => checkSlackCredentials(slack))
            .then((result) => ({ channel: 'slack' as const, result })),
        ]
      : []),
    ...(discord
      ? [
          import('./discord/index.js')
            .then(({ checkDiscordCredentials }) => checkDiscordCredentials(discord))
            .then((result) => ({ channel: 'discord' as const, result })),
        ]
      : []),
  ]);
}
