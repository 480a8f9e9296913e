import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import { type FakeFileHost, startFakeFileHost } from '../fakes/fake-file-host.js';
import type { FakeModelServer, FakeRequest, FakeStep } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { type FakeSlack, startFakeSlack } from '../fakes/fake-slack.js';
import {
  checkDiscord,
  DISCORD_CHANNELS,
  type DiscordAck,
  discordChannelConfig,
  sendDiscordMessage,
  startKillLoopDiscord,
} from './kill-loop-discord.js';
import {
  BOT_TOKEN,
  checkSlack,
  FILE_DELAY_MS,
  type SlackAck,
  sendSlackEvent,
  slackChannelConfig,
} from './kill-loop-slack.js';
import { freePort, makeTempDir, removeDir } from './machine.js';
import {
  type GatewayProcess,
  killRunningChildren,
  PROCESS_TEST_TOKEN,
  REPO_ROOT,
  request,
  spawnGateway,
  writeConfig,
} from './process.js';

/**
 * The kill loop: the built gateway is SIGKILLed at random points while web chat messages, restarts,
 * config patches, sub-agent spawns, schedules, Slack events (HTTP mode, half with a slowly
 * downloading file) and Discord messages (also sent while it is down) are in flight, then started
 * again; at the end every promise the gateway acknowledged is checked against what it kept.
 * Acknowledged means the gateway answered: the web chat reply, "Restarting …", "Changed …", the
 * spawn's or schedule's turn ending, Slack's 200 for an event (see kill-loop-slack.ts); a Discord
 * message counts once its channel is one the bot answered in (see kill-loop-discord.ts).
 */

export interface KillLoopOptions {
  kills: number;
  /** For a reproducible run; printed with the figures. */
  seed: number;
  /** Longest time a cycle runs before its SIGKILL (the kill point is uniform in [100, this]). */
  maxCycleMs?: number;
  onProgress?: (line: string) => void;
}

export interface KillLoopReport {
  kills: number;
  seed: number;
  /** Starts that did not reach the ready line. */
  failedStarts: number;
  acknowledged: Record<Kind, number>;
  lost: Record<Kind, number>;
  doubled: Record<Kind, number>;
  /** Announcements, jobs, Slack events and Discord messages that arrived but were never answered by a turn. */
  unanswered: Record<'spawn' | 'schedule' | 'slack' | 'discord', number>;
  /** Turns a start resumed from their transcript (issue 32 §1), from the gateways' logs. */
  resumed: number;
  /** Tool calls a resumed turn did not run again: the model was told their outcome is unknown. */
  endedAsUnknown: number;
  /** Interrupted turns ended with a message instead of resumed (3 attempts, too old, resume off). */
  endedNotResumed: number;
  /** Sub-agent runs a start resumed (their child turns count in `resumed` too). */
  subagentRunsResumed: number;
  /** Sub-agent runs left running that a start ended `interrupted` instead (3 attempts, too old, off, steers). */
  subagentRunsEndedNotResumed: number;
  details: string[];
}

/** What one gateway process logged of the turns it resumed or ended (see `KillLoopReport`). */
function countResumes(gateway: GatewayProcess, report: KillLoopReport): void {
  for (const line of gateway.logLines()) {
    if (line.msg === 'turn resumed after a restart') {
      report.resumed += 1;
      report.endedAsUnknown += Number(line.unknown ?? 0);
    }
    // Every ended turn logs this line (one given up after 3 attempts logs "message given up" too).
    else if (line.msg === 'interrupted turn ended, not resumed') report.endedNotResumed += 1;
    else if (line.msg === 'sub-agent run resumed after a restart') report.subagentRunsResumed += 1;
    else if (line.msg === 'sub-agent run ended, not resumed') report.subagentRunsEndedNotResumed += 1;
  }
}

type Kind = 'message' | 'restart' | 'patch' | 'spawn' | 'schedule' | 'slack' | 'discord';
const KINDS: readonly Kind[] = ['message', 'restart', 'patch', 'spawn', 'schedule', 'slack', 'discord'];
const OWNER = 'owner';
const SPAWNER = 'spawner';
const PLANNER = 'planner';
const MAIN_SESSION = 'agent:main:main';
const session = (user: string) => `agent:main:webchat:direct:${user}`;

/** A small seeded generator (mulberry32): the same seed gives the same kill points. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function lastUserText(body: any): string | undefined {
  const last = body?.messages?.at(-1);
  if (!last || last.role === 'tool' || last.role === 'assistant') return undefined;
  return typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
}

/** The model: spawns, schedules and child tasks by keyword, `ok` to everything else. */
function modelStep(fake: FakeRequest): FakeStep {
  if (fake.body?.messages?.at(-1)?.role === 'tool') return { text: 'done' };
  const text = lastUserText(fake.body) ?? '';
  const spawn = /SPAWN (s\d+)/.exec(text)?.[1];
  if (spawn)
    return { toolCalls: [{ name: 'sessions_spawn', arguments: { task: `CHILD ${spawn}`, label: spawn } }] };
  const child = /CHILD (s\d+)/.exec(text)?.[1];
  if (child) return { text: `RESULT ${child}` };
  const job = /SCHEDULE (j\d+)/.exec(text)?.[1];
  if (job) {
    return {
      toolCalls: [
        { name: 'schedule.once', arguments: { afterSeconds: 1, recipient: 'main', body: `JOB ${job}` } },
      ],
    };
  }
  return { text: 'ok' };
}

/** Fixed widths, so that no id is the start of another (`m012100` of `m0121000`) in a text search. */
const pad = (value: number, width = 3) => String(value).padStart(width, '0');

/** What the gateway acknowledged, by kind. */
interface Acks {
  message: Array<{ user: string; text: string }>;
  restart: string[];
  patch: string[];
  /**
   * Every patch sent, answered or not: one the gateway applied and was killed before confirming is
   * not acknowledged, yet its restart note is rightly delivered.
   */
  patchesSent: string[];
  spawn: string[];
  schedule: string[];
  slack: SlackAck[];
  discord: DiscordAck[];
}

/** Sends one web chat message; true when the gateway answered it (acknowledged). */
async function send(url: string, user: string, text: string, expect: RegExp): Promise<boolean> {
  try {
    const answer = await request<{ replies?: { text: string }[] }>(url, 'POST', '/api/webchat/messages', {
      text,
      user,
    });
    return answer.status === 200 && (answer.body.replies ?? []).some((reply) => expect.test(reply.text));
  } catch {
    return false;
  }
}

/** One cycle's traffic, until `stop` is set: each kind in its own stream, each stream one request at a time. */
/** The platforms the loop talks to besides the gateway's own API. */
interface Platforms {
  slack: FakeSlack;
  files: FakeFileHost;
  discord: FakeDiscord;
}

function traffic(
  url: string,
  cycle: number,
  acks: Acks,
  platforms: Platforms,
  draw: () => number,
  stopped: () => boolean,
) {
  let counter = 0;
  let ownerTurns = 0;
  // A fast cycle sends over a thousand messages: the counter gets six digits.
  const next = () => `${pad(cycle)}${pad(counter++, 6)}`;
  const stream = async (body: () => Promise<void>) => {
    while (!stopped()) await body();
  };
  const users = ['u1', 'u2', 'u3', 'u4'];
  return Promise.all([
    ...users.map((user) =>
      stream(async () => {
        const text = `MSG m${next()}`;
        if (await send(url, user, text, /./)) acks.message.push({ user, text });
      }),
    ),
    stream(async () => {
      // The first owner command of a cycle goes out at once, later ones after a pause; restarts and
      // patches take turns, the first alternating between cycles. A cycle (killed 0.1–4 s in) often
      // has time for one command only: with a pause before it and a coin flip, a suite run on a
      // loaded machine acknowledged no patch in 12 kills.
      await sleep(ownerTurns === 0 ? 0 : 200 + draw() * 1500);
      if (stopped()) return;
      if ((ownerTurns++ + cycle) % 2 === 0) {
        const note = `n${next()}`;
        if (await send(url, OWNER, `/restart ${note}`, /^Restarting in/)) acks.restart.push(note);
      } else {
        const name = `p${next()}`;
        const raw = JSON.stringify({ agents: { main: { displayName: name } } });
        acks.patchesSent.push(name);
        if (await send(url, OWNER, `/config patch ${raw}`, /^Changed /)) acks.patch.push(name);
      }
    }),
    stream(async () => {
      const id = `s${next()}`;
      if (await send(url, SPAWNER, `SPAWN ${id}`, /^done$/)) acks.spawn.push(id);
    }),
    stream(async () => {
      // Slack answers at once (the 200 waits for the store only): paced, so the turns keep up.
      await sleep(100 + draw() * 200);
      // Every other event with a file, whose download outlasts the acknowledgement.
      const files = draw() < 0.5 ? platforms.files : undefined;
      if (!stopped()) await sendSlackEvent(url, `9${next()}`, acks.slack, files);
    }),
    stream(async () => {
      await sleep(150 + draw() * 300);
      const channel = DISCORD_CHANNELS[counter % DISCORD_CHANNELS.length] ?? DISCORD_CHANNELS[0];
      if (!stopped()) sendDiscordMessage(platforms.discord, channel, next(), acks.discord);
    }),
    stream(async () => {
      await sleep(300);
      const id = `j${next()}`;
      if (await send(url, PLANNER, `SCHEDULE ${id}`, /^done$/)) acks.schedule.push(id);
    }),
  ]);
}

interface Entry {
  role: string;
  text: string;
  /** A restart note's id (the sentinel's intent id). */
  messageId?: string;
}

async function transcript(
  url: string,
  user: string | undefined,
  key = session(user ?? ''),
): Promise<Entry[]> {
  const answer = await request<{ entries?: Entry[] }>(
    url,
    'GET',
    `/api/sessions/${encodeURIComponent(key)}/transcript`,
  );
  return answer.status === 200 ? (answer.body.entries ?? []) : [];
}

/** How often `token` appears in entries matching `pick`, and whether each is followed by an answer. */
function occurrences(entries: Entry[], token: string, pick: (entry: Entry) => boolean) {
  const positions = entries.flatMap((entry, index) =>
    pick(entry) && entry.text.includes(token) ? [index] : [],
  );
  const answered = positions.every((index) =>
    entries.slice(index + 1).some((entry) => entry.role === 'assistant'),
  );
  return { count: positions.length, answered, texts: positions.map((index) => entries[index]?.text ?? '') };
}

async function check(url: string, acks: Acks, fake: FakeSlack, report: KillLoopReport): Promise<boolean> {
  const discord = await checkDiscord(url, acks.discord);
  const users = new Set(acks.message.map((message) => message.user));
  const byUser = new Map<string, Entry[]>();
  for (const user of [...users, OWNER, SPAWNER]) byUser.set(user, await transcript(url, user));
  const main = await transcript(url, undefined, MAIN_SESSION);
  const tally = {
    lost: { ...report.lost },
    doubled: { ...report.doubled },
    unanswered: { ...report.unanswered },
  };
  for (const kind of KINDS) {
    tally.lost[kind] = 0;
    tally.doubled[kind] = 0;
  }
  const slack = await checkSlack(url, fake, acks.slack);
  tally.lost.slack = slack.lost;
  tally.doubled.slack = slack.doubled;
  tally.lost.discord = discord.lost;
  tally.doubled.discord = discord.doubled;
  tally.unanswered = { spawn: 0, schedule: 0, slack: slack.unanswered, discord: discord.unanswered };
  const details: string[] = [...slack.details, ...discord.details];
  const count = (kind: Kind, id: string, found: number) => {
    if (found === 0) {
      tally.lost[kind] += 1;
      details.push(`${kind} ${id} lost`);
    } else if (found > 1) {
      tally.doubled[kind] += 1;
      details.push(`${kind} ${id} ${found} times`);
    }
  };
  for (const message of acks.message) {
    const entries = byUser.get(message.user) ?? [];
    count(
      'message',
      message.text,
      entries.filter((entry) => entry.role === 'user' && entry.text.includes(message.text)).length,
    );
  }
  const owner = byUser.get(OWNER) ?? [];
  const notes = owner.filter(
    (entry) => entry.role === 'system' && entry.text.startsWith('Gateway restarted'),
  );
  for (const note of acks.restart)
    count('restart', note, notes.filter((entry) => entry.text.includes(note)).length);
  // A patch's note names the command, not the value: count them all, at least one per patch
  // acknowledged and at most one per patch sent (a patch applied just before a kill has its note).
  const patchEntries = notes.filter((entry) => entry.text.includes('config-patch'));
  const patchNotes = patchEntries.length;
  // The same note twice is a double whatever was acknowledged.
  const twice = patchNotes - new Set(patchEntries.map((entry) => entry.messageId ?? entry.text)).size;
  const patchCounts = `patch notes: ${patchNotes} for ${acks.patch.length} patches acknowledged, ${acks.patchesSent.length} sent`;
  if (patchNotes < acks.patch.length) {
    tally.lost.patch = acks.patch.length - patchNotes;
    details.push(patchCounts);
  } else if (patchNotes > acks.patchesSent.length || twice > 0) {
    tally.doubled.patch = Math.max(patchNotes - acks.patchesSent.length, twice);
    details.push(`${patchCounts}, ${twice} delivered twice`);
  }
  const isSystem = (entry: Entry) => entry.role === 'system';
  for (const id of acks.spawn) {
    const found = occurrences(byUser.get(SPAWNER) ?? [], `"label":"${id}"`, isSystem);
    count('spawn', id, found.count);
    if (found.count > 0 && !found.answered) tally.unanswered.spawn += 1;
  }
  for (const id of acks.schedule) {
    const found = occurrences(main, `JOB ${id}`, (entry) => entry.role !== 'assistant');
    count('schedule', id, found.count);
    // Which deliveries they were (a replayed message keeps its id; a job fired again has a new one).
    if (found.count > 1) details.push(...found.texts.map((text) => `  ${text.slice(0, 300)}`));
    if (found.count > 0 && !found.answered) tally.unanswered.schedule += 1;
  }
  Object.assign(report, tally, { details });
  return details.length === 0 && Object.values(tally.unanswered).every((count) => count === 0);
}

async function startGateway(
  configPath: string,
  progress: (line: string) => void = () => {},
): Promise<{ gateway: GatewayProcess; url: string } | undefined> {
  const gateway = spawnGateway(['start', '--config', configPath], { cwd: REPO_ROOT });
  try {
    return { gateway, url: await gateway.waitForReady() };
  } catch (error) {
    progress(`a start failed: ${String(error).slice(0, 2000)}`);
    gateway.child.kill('SIGKILL');
    await gateway.exited;
    return undefined;
  }
}

export async function runKillLoop(options: KillLoopOptions): Promise<KillLoopReport> {
  const draw = random(options.seed);
  const progress = options.onProgress ?? (() => {});
  const dir = await makeTempDir('switchboard-kill-loop-');
  const model: FakeModelServer = await startFakeOpenAIServer({ defaultStep: modelStep });
  const slack = await startFakeSlack();
  const files = await startFakeFileHost({ token: BOT_TOKEN, delayMs: FILE_DELAY_MS });
  const discord = await startKillLoopDiscord();
  const platforms: Platforms = { slack, files, discord };
  const zero = () => Object.fromEntries(KINDS.map((kind) => [kind, 0])) as Record<Kind, number>;
  const report: KillLoopReport = {
    kills: 0,
    seed: options.seed,
    failedStarts: 0,
    acknowledged: zero(),
    lost: zero(),
    doubled: zero(),
    unanswered: { spawn: 0, schedule: 0, slack: 0, discord: 0 },
    resumed: 0,
    endedAsUnknown: 0,
    endedNotResumed: 0,
    subagentRunsResumed: 0,
    subagentRunsEndedNotResumed: 0,
    details: [],
  };
  const acks: Acks = {
    message: [],
    restart: [],
    patch: [],
    patchesSent: [],
    spawn: [],
    schedule: [],
    slack: [],
    discord: [],
  };
  try {
    const port = await freePort();
    const configPath = await writeConfig(dir, {
      stateDir: path.join(dir, 'state'),
      http: { port, token: PROCESS_TEST_TOKEN },
      owners: [`webchat:${OWNER}`],
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url } },
      agents: { main: { model: 'fake', tools: ['*'] } },
      tools: {
        toolpacks: ['core', { path: path.join(REPO_ROOT, 'toolpacks', 'scheduler'), id: 'scheduler' }],
      },
      // SIGKILLs a few seconds apart are what the crash-loop breaker is for (issue 32 §2): here they
      // test durability, so the breaker is off and every start is a normal one.
      gateway: { drainTimeoutMs: 2000, crashLoop: { uncleanStarts: 0 } },
      channels: { slack: slackChannelConfig(slack), discord: discordChannelConfig(discord) },
    });
    for (let cycle = 1; cycle <= options.kills; cycle += 1) {
      const started = await startGateway(configPath, progress);
      if (!started) {
        report.failedStarts += 1;
        progress(`cycle ${cycle}: the gateway did not start`);
        continue;
      }
      let stopped = false;
      const load = traffic(started.url, cycle, acks, platforms, draw, () => stopped);
      await sleep(100 + draw() * ((options.maxCycleMs ?? 4000) - 100));
      started.gateway.child.kill('SIGKILL');
      await started.gateway.exited;
      stopped = true;
      await load;
      countResumes(started.gateway, report);
      // Sent while no gateway runs: Discord keeps it, and the next start reads it back.
      const away = DISCORD_CHANNELS[cycle % DISCORD_CHANNELS.length] ?? DISCORD_CHANNELS[0];
      sendDiscordMessage(discord, away, `${pad(cycle)}999999`, acks.discord);
      report.kills += 1;
      if (cycle % 10 === 0) progress(`${cycle}/${options.kills} kills`);
    }
    const last = await startGateway(configPath, progress);
    if (!last) {
      report.failedStarts += 1;
      return report;
    }
    for (const kind of KINDS) report.acknowledged[kind] = acks[kind].length;
    // Notes, announcements and jobs pending at the last kill arrive after this start: wait for them.
    for (let attempt = 0; attempt < 60 && !(await check(last.url, acks, slack, report)); attempt += 1)
      await sleep(1000);
    countResumes(last.gateway, report);
    return report;
  } finally {
    await killRunningChildren();
    await model.close();
    await slack.close();
    await files.close();
    await discord.close();
    await removeDir(dir);
  }
}
