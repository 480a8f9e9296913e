import { createFakeDiscord, type FakeDiscord } from '../test/fakes/fake-discord.js';
import { startFakeOpenAIServer } from '../test/fakes/fake-openai-server.js';
import { eventCallback, type FakeSlack, postSignedEvent, startFakeSlack } from '../test/fakes/fake-slack.js';
import { startTestGateway, type TestGateway } from '../test/helpers/gateway.js';
import {
  type ChannelDriver,
  type ChannelRunResult,
  type ReplyPost,
  ReplyWatch,
  runChannels,
} from './channels-load.js';
import { mean, ms, percentile } from './load.js';
import { describeLoad, describeMachine, printTable, ratio } from './report.js';

/**
 * Chat platform path, inbound event → reply posted: the real Bolt (Socket Mode and HTTP mode)
 * against the fake Slack and the real discord.js against the fake Discord, through the whole
 * gateway (router, session queue, default SQLite store in a temp dir, agent runner, the real
 * OpenAI SDK) to a fake OpenAI server that answers with text at once (one model call, no tools).
 * Latency = handing the event to the fake (deliver / signed POST / dispatch) → the fake recording
 * the reply post. A fresh gateway and fakes per mode. Not a test: nothing here asserts on speed.
 *
 * Shape: 10 channels in parallel, each sending its next message once the previous one is
 * answered (10 in flight). Why sequential per channel: a Discord channel is one session, so with
 * the default `session.queueMode: 'collect'` messages arriving during a turn would be combined
 * into one turn (one reply for several messages), and the Discord adapter replies to the
 * channel's last heard message, so a reply could not be matched to its message either. Slack
 * channel messages each open their own thread session and would not need it; the same shape is
 * used for all modes so that they compare. queueMode stays at its default.
 */

const MESSAGES = 1000;
const USERS = 100;
const CHANNELS = 10;
const WARMUP = 50;
const TIMEOUT_MS = 15_000;
const PROGRESS_EVERY = 250;
const REPLY_TEXT = 'pong from the bench model';
const SIGNING_SECRET = 'bench-signing-secret';
const DISCORD_TOKEN = 'bench-discord-token';
/** Secrets are scrubbed from outgoing text: a key such as `bench` would redact the reply's own words. */
const MODEL_API_KEY = 'sk-bench-0123456789abcdef';
const GUILD = '900000000000000101';

type Mode = 'slack-socket' | 'slack-http' | 'discord';
const MODES: readonly Mode[] = ['slack-socket', 'slack-http', 'discord'];
const LABELS: Record<Mode, string> = {
  'slack-socket': 'Slack Socket Mode',
  'slack-http': 'Slack HTTP mode',
  discord: 'Discord',
};

/** Slack: message ts (unique per serial, apart from the fake's own post ts around 1_700_000_000). */
const slackTs = (serial: number) => `${1_800_000_000 + serial}.000200`;
const slackChannel = (channel: number) => `C${channel}`;
const slackMessage = (fake: FakeSlack, serial: number, channel: number, user: number) => ({
  type: 'message',
  channel: slackChannel(channel),
  channel_type: 'channel',
  user: `U${user}`,
  text: `<@${fake.botUserId}> message ${serial}: anything new?`,
  ts: slackTs(serial),
});

const discordChannel = (channel: number) => `91000000000000${String(channel).padStart(4, '0')}`;
const discordUser = (user: number) => `93000000000000${String(user).padStart(4, '0')}`;
const discordMessageId = (serial: number) => `95000000000${String(serial).padStart(7, '0')}`;

/** A started fake platform: the gateway's channel config, the reply watch, and a driver once the gateway runs. */
interface Platform {
  channels: Record<string, unknown>;
  watch: ReplyWatch;
  /** Platform requests the fake answered so far (Slack Web API calls, Discord REST posts). */
  requests(): number;
  ready(gateway: TestGateway): Promise<ChannelDriver>;
  close(): Promise<void>;
}

async function startPlatform(mode: Mode): Promise<Platform> {
  const watch = new ReplyWatch();
  if (mode === 'discord') {
    const fake: FakeDiscord = await createFakeDiscord({
      token: DISCORD_TOKEN,
      guilds: [
        { id: GUILD, channels: Array.from({ length: CHANNELS }, (_, index) => discordChannel(index)) },
      ],
    });
    watch.observe<FakeDiscord['posted'][number]>(fake.posted, (post) => ({
      key: post.replyTo,
      channel: post.channelId,
      text: post.content,
    }));
    return {
      channels: { discord: { token: DISCORD_TOKEN, apiBase: fake.apiBase } },
      watch,
      requests: () => fake.posted.length + fake.typing.length,
      ready: async () => ({
        keyOf: discordMessageId,
        channelId: discordChannel,
        async send(message) {
          fake.dispatchMessage({
            id: message.key,
            channelId: discordChannel(message.channel),
            guildId: GUILD,
            authorId: discordUser(message.user),
            content: `<@${fake.botId}> message ${message.serial}: anything new?`,
            mentions: [fake.botId],
          });
        },
      }),
      close: () => fake.close(),
    };
  }

  const fake = await startFakeSlack();
  watch.observe(fake.calls, (call): ReplyPost | undefined =>
    call.method === 'chat.postMessage'
      ? { key: call.args.thread_ts, channel: call.args.channel ?? '', text: call.args.text ?? '' }
      : undefined,
  );
  const common = { botToken: 'xoxb-bench', apiUrl: fake.apiUrl };
  const driver = (send: ChannelDriver['send']): ChannelDriver => ({
    keyOf: slackTs,
    channelId: slackChannel,
    send,
  });
  const base = { watch, requests: () => fake.calls.length, close: () => fake.close() };
  if (mode === 'slack-socket') {
    return {
      ...base,
      channels: { slack: { ...common, appToken: 'xapp-bench' } },
      ready: async () => {
        await fake.connected();
        return driver((message) =>
          fake.deliver(slackMessage(fake, message.serial, message.channel, message.user)),
        );
      },
    };
  }
  return {
    ...base,
    channels: { slack: { ...common, mode: 'http', signingSecret: SIGNING_SECRET } },
    ready: async (gateway) => {
      // Served by the gateway's own HTTP server, as in production.
      const url = `${gateway.url}/slack/events`;
      return driver(async (message) => {
        const event = slackMessage(fake, message.serial, message.channel, message.user);
        const body = eventCallback(event, `EvBench${message.serial}`);
        const status = await postSignedEvent(url, body, SIGNING_SECRET);
        if (status !== 200) throw new Error(`events URL answered HTTP ${status}`);
      });
    },
  };
}

/** pino's numeric levels: 40 = warn. */
const warnings = (lines: readonly string[]) =>
  lines.filter((line) => ((JSON.parse(line) as { level?: number }).level ?? 0) >= 40);

interface Row {
  mode: Mode;
  result: ChannelRunResult;
  warmupFailures: number;
  strays: number;
  firstStray: string | undefined;
  requestsPerMessage: number;
  requestsPerSecond: number;
  warnings: string[];
  modelCalls: number;
}

async function measure(mode: Mode, phase: string): Promise<Row> {
  const phaseStarted = performance.now();
  let modelCalls = 0;
  const model = await startFakeOpenAIServer({
    defaultStep: () => {
      // The fake keeps every request; drop them so the heap does not grow with the run.
      model.received.length = 0;
      modelCalls += 1;
      return { text: REPLY_TEXT };
    },
  });
  try {
    const platform = await startPlatform(mode);
    try {
      const gateway = await startTestGateway({
        config: {
          // log.level stays at its default (info): one `run ended` line per turn, as a user runs it.
          models: {
            bench: { provider: 'openai', model: 'bench', baseUrl: model.url, apiKey: MODEL_API_KEY },
          },
          agents: { main: { model: 'bench' } },
          channels: platform.channels,
        },
      });
      try {
        const driver = await platform.ready(gateway);
        const run = (messages: number, firstSerial: number, onProgress?: (done: number) => void) =>
          runChannels({
            driver,
            watch: platform.watch,
            messages,
            channels: CHANNELS,
            users: USERS,
            firstSerial,
            expectedText: REPLY_TEXT,
            timeoutMs: TIMEOUT_MS,
            progressEvery: PROGRESS_EVERY,
            ...(onProgress ? { onProgress } : {}),
          });
        const warmup = await run(WARMUP, 0);
        gateway.logLines.length = 0;
        const requestsBefore = platform.requests();
        const requestsStarted = performance.now();
        const callsBefore = modelCalls;
        const result = await run(MESSAGES, WARMUP, (done) => {
          const seconds = ((performance.now() - phaseStarted) / 1000).toFixed(1);
          process.stderr.write(`  ${LABELS[mode]}: ${done}/${MESSAGES} messages (${seconds} s)\n`);
        });
        const row: Row = {
          mode,
          result,
          warmupFailures: warmup.failures,
          strays: platform.watch.strays,
          firstStray: platform.watch.firstStray,
          requestsPerMessage: (platform.requests() - requestsBefore) / MESSAGES,
          requestsPerSecond:
            ((platform.requests() - requestsBefore) / (performance.now() - requestsStarted)) * 1000,
          warnings: warnings(gateway.logLines),
          modelCalls: modelCalls - callsBefore,
        };
        if (warmup.failures > 0) row.result.firstFailure ??= `warm-up: ${warmup.firstFailure}`;
        const seconds = ((performance.now() - phaseStarted) / 1000).toFixed(1);
        console.log(
          `${phase} ${LABELS[mode]}: p50 ${ms(result.latencies, 50)} ms, ` +
            `${perSecond(result).toFixed(0)} messages/s, ${result.failures} failures ` +
            `(${seconds} s with start and warm-up)`,
        );
        return row;
      } finally {
        await gateway.dispose();
      }
    } finally {
      await platform.close();
    }
  } finally {
    await model.close();
  }
}

const perSecond = (result: ChannelRunResult) => (result.messages / result.elapsedMs) * 1000;

async function main(): Promise<void> {
  console.log(
    'Switchboard channels bench: inbound event → reply posted, through the whole gateway, for Slack ' +
      '(real Bolt, Socket Mode and HTTP mode, against the fake Slack) and Discord (real discord.js ' +
      'against the fake Discord), with a fake OpenAI server answering text at once (one model call, ' +
      'no tools); a fresh gateway per mode, default SQLite store in a temp dir, default log level (info).',
  );
  console.log(`${describeMachine()} (fakes, gateway and fake model share this process).`);
  console.log(
    `Per mode: ${MESSAGES} messages from ${USERS} users in ${CHANNELS} channels (every user posts in every ` +
      `channel), each mentioning the bot, after ${WARMUP} warm-up messages. The ${CHANNELS} channels run in ` +
      'parallel and each sends its next message once the previous is answered (10 in flight): a Discord ' +
      "channel is one session, and with the default queueMode 'collect' messages arriving during a turn " +
      'would be combined into one turn; the same shape for Slack keeps the modes comparable. Latency = ' +
      'event handed to the fake (Socket Mode deliver / signed POST to the events URL / gateway dispatch) → ' +
      'the fake recording the reply post (matched by thread_ts / message_reference).',
  );
  const rows: Row[] = [];
  for (const [index, mode] of MODES.entries())
    rows.push(await measure(mode, `[${index + 1}/${MODES.length}]`));

  printTable(
    [
      'mode',
      'messages',
      'wall s',
      'messages/s',
      'p50 ms',
      'p99 ms',
      'mean ms',
      'max ms',
      'platform req/msg',
      'platform req/s',
      'failures',
      'stray posts',
      'warn logs',
    ],
    rows.map((row) => [
      LABELS[row.mode],
      String(row.result.messages),
      (row.result.elapsedMs / 1000).toFixed(1),
      perSecond(row.result).toFixed(1),
      ms(row.result.latencies, 50),
      ms(row.result.latencies, 99),
      mean(row.result.latencies).toFixed(2),
      percentile(row.result.latencies, 100).toFixed(1),
      row.requestsPerMessage.toFixed(2),
      row.requestsPerSecond.toFixed(1),
      String(row.result.failures + row.warmupFailures),
      String(row.strays),
      String(row.warnings.length),
    ]),
    { leftColumns: 1 },
  );
  console.log(
    '(platform req/msg and req/s: Web API calls (Slack: reactions.add, chat.postMessage, reactions.remove) ' +
      'or REST requests (Discord: typing, message post) the fake answered during the measured messages. ' +
      "@discordjs/rest keeps to Discord's global limit of 50 requests/s on the client side. The fake " +
      "Slack does not echo the bot's posts (it could only over Socket Mode); the fake Discord echoes " +
      'them as MESSAGE_CREATE, as Discord does. Sessions: a Slack message opens its own thread session ' +
      '(1 turn each); a Discord channel is one session that grows by one turn per message, so its model ' +
      'requests carry up to agentLoop.historyEntries = 200 transcript entries.)',
  );

  const row = (mode: Mode) => rows.find((candidate) => candidate.mode === mode)?.result;
  const p = (mode: Mode, value: number) => {
    const result = row(mode);
    return result && percentile(result.latencies, value);
  };
  const rate = (mode: Mode) => {
    const result = row(mode);
    return result && perSecond(result);
  };
  const compare = (label: string, a: Mode, b: Mode) =>
    `${label} p50 ${ratio(p(a, 50), p(b, 50))}, p99 ${ratio(p(a, 99), p(b, 99))}, ` +
    `messages/s ${ratio(rate(a), rate(b))}`;
  console.log(
    `\nRatios: ${compare('HTTP/Socket Mode', 'slack-http', 'slack-socket')}; ` +
      `${compare('Discord/Slack Socket Mode', 'discord', 'slack-socket')}; ` +
      `${compare('Discord/Slack HTTP', 'discord', 'slack-http')}.`,
  );
  for (const { mode, result, strays, firstStray, warnings, modelCalls } of rows) {
    if (result.failures > 0) console.log(`! ${LABELS[mode]}: first failure: ${result.firstFailure}`);
    if (strays > 0) console.log(`! ${LABELS[mode]}: ${strays} stray posts, first: ${firstStray}`);
    if (modelCalls !== MESSAGES)
      console.log(`! ${LABELS[mode]}: ${modelCalls} model calls, expected ${MESSAGES} (one per message)`);
    if (warnings.length > 0) console.log(`! ${LABELS[mode]}: first warning: ${warnings[0]?.slice(0, 300)}`);
  }
  console.log(`Load average at the end: ${describeLoad()}.`);
}

await main();
