import { createFakeDiscord, type FakeDiscord } from '../fakes/fake-discord.js';
import { request } from './process.js';

/**
 * The kill loop's Discord stream: mentions of the bot in two channels, sent while the gateway runs
 * and also between a SIGKILL and the next start (Discord keeps them; the gateway reads them back
 * when it connects). Discord acknowledges nothing to the sender: a message counts once its
 * channel is one the bot answered in before (the catch-up reads the channels the bot is active
 * in; a channel's first message is only sent, not counted). Kept means its user entry is in the
 * channel's transcript once, followed by an answer.
 */

const TOKEN = 'kill-loop-discord-token';
const GUILD = '900000000000000901';
export const DISCORD_CHANNELS = ['910000000000000901', '910000000000000902'] as const;
const AUTHOR = '930000000000000901';

export interface DiscordAck {
  channelId: string;
  text: string;
}

export function startKillLoopDiscord(): Promise<FakeDiscord> {
  return createFakeDiscord({ token: TOKEN, guilds: [{ id: GUILD, channels: [...DISCORD_CHANNELS] }] });
}

/** The Discord part of the loop's config, against `fake`. */
export function discordChannelConfig(fake: FakeDiscord) {
  return { token: TOKEN, apiBase: fake.apiBase, guilds: [GUILD], stream: false };
}

/** Sends one mention named `id` in `channelId`; counted in `acks` when the bot answered there before. */
export function sendDiscordMessage(
  fake: FakeDiscord,
  channelId: string,
  id: string,
  acks: DiscordAck[],
): void {
  const text = `DISCORD d${id}`;
  const active = fake.posted.some((post) => post.channelId === channelId);
  fake.dispatchMessage({
    channelId,
    guildId: GUILD,
    authorId: AUTHOR,
    content: `<@${fake.botId}> ${text}`,
    mentions: [fake.botId],
  });
  if (active) acks.push({ channelId, text });
}

export interface DiscordCheck {
  lost: number;
  doubled: number;
  unanswered: number;
  details: string[];
}

/** What became of every counted message. */
export async function checkDiscord(url: string, acks: readonly DiscordAck[]): Promise<DiscordCheck> {
  const result: DiscordCheck = { lost: 0, doubled: 0, unanswered: 0, details: [] };
  const transcripts = new Map<string, { role: string; text: string }[]>();
  for (const channelId of DISCORD_CHANNELS) {
    const key = `agent:main:discord:channel:${channelId}`;
    const answer = await request<{ entries?: { role: string; text: string }[] }>(
      url,
      'GET',
      `/api/sessions/${encodeURIComponent(key)}/transcript`,
    );
    transcripts.set(channelId, answer.status === 200 ? (answer.body.entries ?? []) : []);
  }
  for (const ack of acks) {
    const entries = transcripts.get(ack.channelId) ?? [];
    const found = entries.flatMap((entry, index) =>
      entry.role === 'user' && entry.text.includes(ack.text) ? [index] : [],
    );
    if (found.length === 0) {
      result.lost += 1;
      result.details.push(`discord ${ack.text} lost`);
      continue;
    }
    if (found.length > 1) {
      result.doubled += 1;
      result.details.push(`discord ${ack.text} ${found.length} times`);
      for (const index of found) result.details.push(`  ${JSON.stringify(entries[index]).slice(0, 400)}`);
    }
    if (!entries.slice((found.at(-1) ?? 0) + 1).some((entry) => entry.role === 'assistant')) {
      result.unanswered += 1;
      result.details.push(`discord ${ack.text} not answered`);
    }
  }
  return result;
}
