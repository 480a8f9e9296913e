import type { FakeDiscord } from '../fakes/fake-discord.js';
import type { FakeSlack } from '../fakes/fake-slack.js';
import { pollUntil } from './process.js';

/** Where `whoamiOnBoth` writes on Discord. */
export interface DiscordPlace {
  guildId: string;
  channelId: string;
  authorId: string;
}

/**
 * Sends `/whoami`, mentioning the bot, in Slack channel C1 (as U1, a new thread per `round`) and in
 * `place` on Discord, and resolves once each has its reply on its own route. Throws, naming the
 * platform, when one does not come within 10 s.
 */
export async function whoamiOnBoth(
  slack: FakeSlack,
  discord: FakeDiscord,
  place: DiscordPlace,
  round: number,
): Promise<void> {
  const ts = `${100 + round}.1`;
  await slack.deliver({
    type: 'message',
    channel: 'C1',
    channel_type: 'channel',
    user: 'U1',
    text: `<@${slack.botUserId}> /whoami`,
    ts,
  });
  await slack.waitForCall('chat.postMessage', (call) => call.args.thread_ts === ts, 10_000);
  const id = discord.dispatchMessage({
    ...place,
    content: `<@${discord.botId}> /whoami`,
    mentions: [discord.botId],
  });
  await pollUntil(`the Discord reply in round ${round}`, () =>
    discord.posted.some((post) => post.replyTo === id) ? true : undefined,
  );
}
