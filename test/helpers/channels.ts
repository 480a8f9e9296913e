import { createFakeDiscord, type FakeDiscord } from '../fakes/fake-discord.js';
import { type FakeSlack, type FakeSlackOptions, startFakeSlack } from '../fakes/fake-slack.js';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from './gateway.js';
import { pollUntil } from './process.js';
import type { Cleanups } from './teardown.js';

/*
 * The set-up of the channel tests: a fake Slack or Discord and a gateway connected to them, each
 * stopped after the test by `cleanups` (the gateway first, as it was started last).
 */

export async function startSlackForTest(
  cleanups: Cleanups,
  options: FakeSlackOptions = {},
): Promise<FakeSlack> {
  const slack = await startFakeSlack(options);
  cleanups.push(() => slack.close());
  return slack;
}

export async function startDiscordForTest(
  cleanups: Cleanups,
  options: Parameters<typeof createFakeDiscord>[0],
): Promise<FakeDiscord> {
  const discord = await createFakeDiscord(options);
  cleanups.push(() => discord.close());
  return discord;
}

/** A gateway in this process (see `startTestGateway`), disposed with its directory after the test. */
export async function startGatewayForTest(
  cleanups: Cleanups,
  options: TestGatewayOptions = {},
): Promise<TestGateway> {
  const gateway = await startTestGateway(options);
  cleanups.push(() => gateway.dispose());
  return gateway;
}

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
  await askOnSlack(slack, `${100 + round}.1`, '/whoami', 10_000);
  await askOnDiscord(discord, place, '/whoami', `the Discord reply in round ${round}`);
}

/**
 * Mentions the bot with `text` in Slack channel C1 as U1, starting the thread `ts`, and resolves
 * once the gateway has answered in that thread (a session for it then exists).
 */
export async function askOnSlack(
  slack: FakeSlack,
  ts: string,
  text: string,
  timeoutMs = 15_000,
): Promise<void> {
  await slack.deliver({
    type: 'message',
    channel: 'C1',
    channel_type: 'channel',
    user: 'U1',
    text: `<@${slack.botUserId}> ${text}`,
    ts,
  });
  await slack.waitForCall('chat.postMessage', (call) => call.args.thread_ts === ts, timeoutMs);
}

/** Mentions the bot with `text` in `place` on Discord and resolves once the gateway replied to it. */
export async function askOnDiscord(
  discord: FakeDiscord,
  place: DiscordPlace,
  text: string,
  description = 'the Discord reply',
): Promise<void> {
  const id = discord.dispatchMessage({
    ...place,
    content: `<@${discord.botId}> ${text}`,
    mentions: [discord.botId],
  });
  await pollUntil(description, () => (discord.posted.some((post) => post.replyTo === id) ? true : undefined));
}
