import type { DiscordAdapterOptions } from './discord/index.js';
import type { SlackAdapter, SlackAdapterOptions } from './slack/index.js';
import type { ChannelAdapter } from './types.js';

/*
 * discord.js and @slack/bolt take one to two seconds each to load. A process that has neither
 * platform configured (the web chat alone, every CLI command, doctor without channels) never loads
 * them: the adapters and the credential checks import their platform on first use.
 */

export async function loadDiscordAdapter(options: DiscordAdapterOptions): Promise<ChannelAdapter> {
  const { createDiscordAdapter } = await import('./discord/index.js');
  return createDiscordAdapter(options);
}

export async function loadSlackAdapter(options: SlackAdapterOptions): Promise<SlackAdapter> {
  const { createSlackAdapter } = await import('./slack/index.js');
  return createSlackAdapter(options);
}
