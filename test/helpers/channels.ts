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
