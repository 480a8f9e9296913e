import { createFakeDiscord, type FakeDiscord } from '../test/fakes/fake-discord.js';
import type { FakeModelServer } from '../test/fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../test/fakes/fake-openai-server.js';
import { type FakeSlack, startFakeSlack } from '../test/fakes/fake-slack.js';
import { startTestGateway, type TestGateway } from '../test/helpers/gateway.js';
import { percentile } from './load.js';
import { describeMachine, fixed, printTable } from './report.js';

/**
 * Streaming replies: time to the first visible text against time to the full reply, on Slack
 * (Socket Mode, the real Bolt) and Discord (the real discord.js) against their fakes, through the
 * whole gateway to a fake OpenAI server that writes its answer slowly (CHUNKS deltas CHUNK_MS
 * apart, as a model does). Each turn: a mention handed to the fake → the fake recording the bot's
 * first post in that place (first visible text) → the post showing the whole answer (full reply).
 * `stream: true` (placeholder then updates) against `stream: false` (one post at the end). Turns
 * run one after another. Not a test: nothing here asserts on speed.
 */

const TURNS = 10;
const CHUNKS = 12;
const CHUNK_MS = 150;
const ANSWER = Array.from({ length: CHUNKS }, (_, index) => `part ${index + 1} of the answer.`).join(' ');
const MODEL_API_KEY = 'sk-bench-stream-0123456789';
const DISCORD_TOKEN = 'bench-stream-discord-token';
const GUILD = '900000000000000301';
const CHANNEL = '910000000000000301';
const TIMEOUT_MS = 30_000;

interface Timing {
  first: number;
  full: number;
}

async function until(check: () => boolean, what: string): Promise<number> {
  const deadline = Date.now() + TIMEOUT_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`bench: no ${what} within ${TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return performance.now();
}

const modelConfig = (model: FakeModelServer) => ({
  models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: MODEL_API_KEY } },
  agents: { main: { model: 'fake' } },
});

async function slackRun(stream: boolean): Promise<Timing[]> {
  const model = await startFakeOpenAIServer();
  const fake: FakeSlack = await startFakeSlack({ echoPosts: true });
  const gateway: TestGateway = await startTestGateway({
    config: {
      ...modelConfig(model),
      channels: { slack: { botToken: 'xoxb-bench', appToken: 'xapp-bench', apiUrl: fake.apiUrl, stream } },
    },
  });
  await fake.connected();
  const timings: Timing[] = [];
  try {
    for (let turn = 0; turn < TURNS; turn++) {
      const ts = `${1_900_000_000 + turn}.000100`;
      model.push({ text: ANSWER, chunks: CHUNKS, chunkDelayMs: CHUNK_MS });
      const mine = () => [...fake.messages.values()].find((message) => message.threadTs === ts);
      const start = performance.now();
      await fake.deliver({
        type: 'message',
        channel: 'C1',
        channel_type: 'channel',
        user: 'U1',
        text: `<@UBOT> go ${turn}`,
        ts,
      });
      const first = await until(() => mine() !== undefined, 'first post');
      const full = await until(() => mine()?.text === ANSWER, 'full reply');
      timings.push({ first: first - start, full: full - start });
    }
  } finally {
    await gateway.dispose();
    await fake.close();
    await model.close();
  }
  return timings;
}

async function discordRun(stream: boolean): Promise<Timing[]> {
  const model = await startFakeOpenAIServer();
  const fake: FakeDiscord = await createFakeDiscord({
    token: DISCORD_TOKEN,
    guilds: [{ id: GUILD, channels: [CHANNEL] }],
  });
  const gateway = await startTestGateway({
    config: {
      ...modelConfig(model),
      channels: { discord: { token: DISCORD_TOKEN, apiBase: fake.apiBase, stream } },
    },
  });
  const timings: Timing[] = [];
  try {
    for (let turn = 0; turn < TURNS; turn++) {
      model.push({ text: ANSWER, chunks: CHUNKS, chunkDelayMs: CHUNK_MS });
      const before = fake.posted.length;
      const mine = () => {
        const post = fake.posted.slice(before).find((candidate) => candidate.channelId === CHANNEL);
        const id = post === undefined ? undefined : fake.idOf(post);
        return id === undefined ? undefined : fake.message(id)?.content;
      };
      const start = performance.now();
      fake.dispatchMessage({
        channelId: CHANNEL,
        guildId: GUILD,
        authorId: '930000000000000301',
        content: `<@${fake.botId}> go ${turn}`,
        mentions: [fake.botId],
      });
      const first = await until(() => mine() !== undefined, 'first post');
      const full = await until(() => mine() === ANSWER, 'full reply');
      timings.push({ first: first - start, full: full - start });
      // Discord's edit budget is per channel: let it refill so turns do not wait on each other.
      if (stream) await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  } finally {
    await gateway.dispose();
    await fake.close();
    await model.close();
  }
  return timings;
}

const stat = (values: number[], p: number) => fixed(percentile(Float64Array.from(values).sort(), p));

async function main() {
  console.log('\n## Streaming replies: first visible text against the full reply');
  console.log(
    `${describeMachine()}; ${TURNS} turns per row, one at a time; the fake model writes ${CHUNKS} deltas ${CHUNK_MS} ms apart (${ANSWER.length} characters).`,
  );
  const rows: string[][] = [];
  for (const [label, run] of [
    ['Slack', slackRun],
    ['Discord', discordRun],
  ] as const) {
    for (const stream of [true, false]) {
      const timings = await run(stream);
      const first = timings.map((timing) => timing.first);
      const full = timings.map((timing) => timing.full);
      rows.push([
        label,
        `stream: ${stream}`,
        stat(first, 50),
        stat(first, 99),
        stat(full, 50),
        stat(full, 99),
      ]);
    }
  }
  printTable(
    [
      'platform',
      'config',
      'first text p50 ms',
      'first text p99 ms',
      'full reply p50 ms',
      'full reply p99 ms',
    ],
    rows,
    {
      title: 'time from the mention reaching the fake platform',
      leftColumns: 2,
    },
  );
}

await main();
process.exit(0);
