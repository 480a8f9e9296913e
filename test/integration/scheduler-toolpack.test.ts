import { mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import {
  type ControllerHost,
  createControllerHost,
  createOutbox,
  createProjectStore,
  type Outbox,
  outboxFile,
  type ProjectMessage,
} from '../../src/extensions/toolpacks/index.js';
import { createStore, type Store } from '../../src/records/store/index.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { REPO_ROOT } from '../helpers/process.js';
import { loadToolpackFixture } from '../helpers/toolpacks.js';
import { openEvents } from '../helpers/webchat-events.js';

/**
 * The packaged scheduler toolpack (`toolpacks/scheduler`): its controller driven directly with a
 * controlled clock (fake Date for tool calls, the tick context's `now` for ticks), and once end to
 * end through a gateway whose model schedules a post into the web chat.
 */

const SCHEDULER = path.join(REPO_ROOT, 'toolpacks/scheduler');
const T0 = Date.parse('2030-01-07T08:00:00.000Z'); // a Monday
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const ROSTER = [
  { id: 'pm', displayName: 'Project manager', role: 'coordinator', status: 'idle' },
  { id: 'ops', displayName: 'Ops', role: 'agent', status: 'idle' },
];

let stateDir: string;
let store: Store;
let delivered: ProjectMessage[];
let errors: string[];

beforeEach(async () => {
  stateDir = await realpath(await mkdtemp(path.join(tmpdir(), 'scheduler-toolpack-')));
  delivered = [];
  errors = [];
  store = await createStore({ url: 'memory://', stateDir, logger: quietLogger() });
  vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => {
    errors.push(parts.map(String).join(' '));
  });
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(T0);
});

afterEach(async () => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  await store.close();
  await rm(stateDir, { recursive: true, force: true });
});

function quietLogger() {
  return createLogger({ level: 'silent', destination: { write: () => undefined } }).logger;
}

const loadScheduler = () => loadToolpackFixture(SCHEDULER, 'scheduler');

type Agent = { id: string; status: 'idle' | 'running'; modelAlive: boolean };
const idle = (id: string): Agent => ({ id, status: 'idle', modelAlive: false });
const running = (id: string): Agent => ({ id, status: 'running', modelAlive: true });

/**
 * A controller host as the gateway builds it, on the shared state dir; a new one is a "restart".
 * With `outbox`, sends are journalled there first, as in the gateway; `deliver` replaces the
 * recording one (a delivery that never ends stands for a kill before it did).
 */
async function scheduler(
  options: { outbox?: Outbox; deliver?: (message: ProjectMessage) => Promise<void> } = {},
) {
  const toolpack = await loadScheduler();
  const host: ControllerHost = createControllerHost({
    toolpack,
    store: createProjectStore({
      toolpackId: toolpack.id,
      stateDir,
      routeNames: ['#ops', '#lobby'],
      coordinatorAgent: 'pm',
      listAgents: () => ROSTER,
      projectStats: () => ({}),
      deliver: options.deliver ?? ((message) => void delivered.push(message)),
      store,
      logger: quietLogger(),
      ...(options.outbox ? { outbox: options.outbox } : {}),
    }),
    logger: quietLogger(),
    recordSignal: () => undefined,
  });
  const hook = await host.schedulerHook();
  if (!hook) throw new Error('the scheduler controller exports no scheduler hook');
  const call = async (tool: string, input: Record<string, unknown>) =>
    (await host.support({ tool, input, agent: { id: 'pm' }, activationId: 'act_test' })) as {
      output: string;
      title?: string;
      metadata: any;
    };
  const tick = (now: number, agents: Agent[] = [idle('pm'), idle('ops')]) =>
    hook({
      now,
      agents,
      recordSignal: () => undefined,
      hasPendingSignals: () => false,
      hasPendingSignalsForAgent: () => false,
    });
  const once = async (input: Record<string, unknown>) => (await call('schedule.once', input)).metadata.job;
  const recurring = async (input: Record<string, unknown>) =>
    (await call('schedule.recurring', input)).metadata.job;
  const list = async (includeInactive = false) =>
    (await call('schedule.list', { includeInactive })).metadata.jobs as any[];
  return { host, call, tick, once, recurring, list };
}

const jobsPath = () => path.join(stateDir, 'toolpack-state/scheduler/jobs.json');
const readJobs = async () => JSON.parse(await readFile(jobsPath(), 'utf8'));
const bodies = () => delivered.map((message) => message.body);

describe('the scheduler manifest', () => {
  it('loads and declares Suzumio scheduler tools, schemas and WebUI entries', async () => {
    const toolpack = await loadScheduler();
    expect(toolpack.id).toBe('scheduler');
    expect(toolpack.tools.map((tool) => tool.name)).toEqual([
      'schedule.once',
      'schedule.recurring',
      'schedule.list',
      'schedule.cancel',
    ]);
    expect(toolpack.webui.map((entry) => [entry.id, entry.kind])).toEqual([
      ['schedule.jobs', 'panel'],
      ['schedule.once', 'action'],
      ['schedule.recurring', 'action'],
      ['schedule.cancel', 'action'],
      ['schedule.pause', 'action'],
      ['schedule.resume', 'action'],
      ['schedule.runNow', 'action'],
      ['schedule.edit', 'action'],
    ]);
    const schema = (name: string) => toolpack.tools.find((tool) => tool.name === name)?.inputSchema as any;
    expect(Object.keys(schema('schedule.once').properties)).toEqual([
      'at',
      'afterMs',
      'afterSeconds',
      'afterMinutes',
      'afterHours',
      'afterDays',
      'sender',
      'recipient',
      'channel',
      'priority',
      'waitForQuiet',
      'body',
    ]);
    expect(schema('schedule.once').properties.priority).toMatchObject({
      enum: ['P0', 'P1', 'P2', 'P3'],
      default: 'P3',
    });
    expect(schema('schedule.recurring').properties.weekday.enum).toEqual([
      'sun',
      'mon',
      'tue',
      'wed',
      'thu',
      'fri',
      'sat',
    ]);
    expect(schema('schedule.list').properties.includeInactive.default).toBe(false);
    expect(schema('schedule.cancel').required).toEqual(['id']);
  });
});

describe('the scheduler controller', () => {
  it('fires a once job (after*) exactly at its due time, to the coordinator by default, as P3', async () => {
    const { once, tick, list } = await scheduler();
    const job = await once({ afterMinutes: 20, afterSeconds: 30, body: 'stand-up in 10' });
    expect(job).toMatchObject({
      type: 'once',
      status: 'active',
      nextAt: new Date(T0 + 20 * MINUTE + 30_000).toISOString(),
      sentCount: 0,
      recipient: 'pm',
      priority: 'P3',
      sender: 'scheduler',
    });
    expect(job.id).toMatch(/^sch_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    await tick(T0 + 20 * MINUTE + 29_999);
    expect(delivered).toEqual([]);
    await tick(T0 + 20 * MINUTE + 30_000);
    await tick(T0 + 21 * MINUTE);
    expect(delivered).toEqual([
      expect.objectContaining({
        sender: 'scheduler',
        recipient: 'pm',
        priority: 'P3',
        body: 'stand-up in 10',
      }),
    ]);
    const [done] = await list(true);
    expect(done).toMatchObject({
      status: 'done',
      sentCount: 1,
      lastSentAt: new Date(T0 + 20 * MINUTE + 30_000).toISOString(),
      lastMessageId: delivered[0]?.id,
    });
    expect(await list()).toEqual([]);
  });

  it('fires a once job at an absolute time to a channel with the given sender and priority', async () => {
    const { once, tick } = await scheduler();
    await once({
      at: '2030-01-07T09:30:00+01:00',
      channel: '#ops',
      sender: 'oncall-bot',
      priority: 'P1',
      body: 'rotate',
    });
    await tick(Date.parse('2030-01-07T08:29:59.999Z'));
    expect(delivered).toEqual([]);
    await tick(Date.parse('2030-01-07T08:30:00.000Z'));
    expect(delivered).toEqual([
      expect.objectContaining({ sender: 'oncall-bot', channel: '#ops', priority: 'P1', body: 'rotate' }),
    ]);
    expect(delivered[0]?.recipient).toBeUndefined();
  });

  it('repeats an interval job from each firing, and never fires twice for one due time', async () => {
    const { recurring, tick, list } = await scheduler();
    await recurring({ everyMinutes: 10, recipient: 'ops', body: 'check the queue' });
    await tick(T0 + 9 * MINUTE);
    expect(delivered).toHaveLength(0);
    await tick(T0 + 10 * MINUTE);
    await tick(T0 + 10 * MINUTE);
    await tick(T0 + 15 * MINUTE);
    expect(delivered).toHaveLength(1);
    await tick(T0 + 20 * MINUTE);
    expect(delivered).toHaveLength(2);
    // Overlapping ticks for the same moment send once, even when each has to read the file afresh.
    await writeFile(jobsPath(), JSON.stringify(await readJobs()));
    await Promise.all([tick(T0 + 30 * MINUTE), tick(T0 + 30 * MINUTE), tick(T0 + 30 * MINUTE)]);
    expect(delivered).toHaveLength(3);
    const [job] = await list();
    expect(job).toMatchObject({
      status: 'active',
      sentCount: 3,
      nextAt: new Date(T0 + 40 * MINUTE).toISOString(),
      lastSentAt: new Date(T0 + 30 * MINUTE).toISOString(),
    });
  });

  it('does not fire an interval job before startAt', async () => {
    const { recurring, tick } = await scheduler();
    const job = await recurring({ everyHours: 1, startAt: '2030-01-08T00:00:00Z', body: 'daily-ish' });
    expect(job.nextAt).toBe('2030-01-08T00:00:00.000Z');
    await tick(Date.parse('2030-01-07T23:59:59Z'));
    expect(delivered).toHaveLength(0);
    await tick(Date.parse('2030-01-08T00:00:00Z'));
    expect(delivered).toHaveLength(1);
  });

  it('computes weekly UTC times across a week and a year boundary', async () => {
    vi.setSystemTime(Date.parse('2024-12-28T23:00:00Z')); // Saturday, 23:00 UTC
    const { recurring, tick, list } = await scheduler();
    const sunday = await recurring({ weekday: 'sun', time: '00:30', channel: '#lobby', body: 'sun' });
    const saturday = await recurring({ weekday: 'sat', time: '22:00', channel: '#lobby', body: 'sat' });
    const wednesday = await recurring({ weekday: 'wed', time: '9:05', channel: '#lobby', body: 'wed' });
    expect(sunday.nextAt).toBe('2024-12-29T00:30:00.000Z');
    expect(sunday.schedule).toEqual({ mode: 'weekly', weekday: 'sun', hour: 0, minute: 30, timezone: 'UTC' });
    expect(saturday.nextAt).toBe('2025-01-04T22:00:00.000Z'); // today's 22:00 has passed
    expect(wednesday.nextAt).toBe('2025-01-01T09:05:00.000Z');

    await tick(Date.parse('2024-12-29T00:30:00Z'));
    expect(bodies()).toEqual(['sun']);
    await tick(Date.parse('2025-01-01T09:05:00Z'));
    expect(bodies()).toEqual(['sun', 'wed']);
    const next = Object.fromEntries((await list()).map((job) => [job.body, job.nextAt]));
    expect(next).toEqual({
      sun: '2025-01-05T00:30:00.000Z',
      sat: '2025-01-04T22:00:00.000Z',
      wed: '2025-01-08T09:05:00.000Z',
    });
  });

  it('defers a waitForQuiet job while its recipient is busy, then sends it once', async () => {
    const { once, tick, list } = await scheduler();
    await once({ afterMinutes: 1, recipient: 'ops', waitForQuiet: true, body: 'when you are free' });
    await once({ afterMinutes: 1, recipient: 'ops', body: 'right away' });
    await tick(T0 + MINUTE, [idle('pm'), running('ops')]);
    expect(bodies()).toEqual(['right away']);
    await tick(T0 + 2 * MINUTE, [idle('pm'), { id: 'ops', status: 'idle', modelAlive: true }]);
    expect(bodies()).toEqual(['right away']);
    expect((await list()).map((job) => job.body)).toEqual(['when you are free']);
    await tick(T0 + 3 * MINUTE, [idle('pm'), idle('ops')]);
    await tick(T0 + 4 * MINUTE, [idle('pm'), idle('ops')]);
    expect(bodies()).toEqual(['right away', 'when you are free']);
    expect(delivered[1]?.recipient).toBe('ops');
  });

  it('cancels a job so it never fires; cancelling again or an unknown id says so', async () => {
    const { once, recurring, call, tick, list } = await scheduler();
    const first = await once({ afterMinutes: 5, body: 'never' });
    const second = await recurring({ everyMinutes: 5, body: 'stopped' });
    await tick(T0 + 5 * MINUTE);
    expect(bodies()).toEqual(['never', 'stopped']);
    const cancelled = await call('schedule.cancel', { id: second.id });
    expect(cancelled.output).toBe(`Cancelled ${second.id}.`);
    expect(cancelled.metadata.job).toMatchObject({
      status: 'cancelled',
      cancelledAt: new Date(T0).toISOString(),
    });
    await tick(T0 + 60 * MINUTE);
    expect(bodies()).toEqual(['never', 'stopped']);
    expect((await call('schedule.cancel', { id: second.id })).output).toContain('already cancelled');
    expect((await call('schedule.cancel', { id: first.id })).output).toContain('already done');
    await expect(call('schedule.cancel', { id: 'sch_nope' })).rejects.toThrow(/no scheduled job sch_nope/);
    expect(await list()).toEqual([]);
  });

  it('lists active jobs, or all with includeInactive, with metrics', async () => {
    const { once, call, tick } = await scheduler();
    const done = await once({ afterMs: 10, body: 'done soon' });
    const cancelled = await once({ afterHours: 1, body: 'cancel me' });
    const active = await once({ afterDays: 1, body: 'tomorrow\nsecond line' });
    await call('schedule.cancel', { id: cancelled.id });
    await tick(T0 + 10);
    const short = await call('schedule.list', {});
    expect(short.metadata.jobs.map((job: any) => job.id)).toEqual([active.id]);
    expect(short.output).toContain(
      `- ${active.id} [active/once] next ${new Date(T0 + 24 * HOUR).toISOString()}`,
    );
    expect(short.output).toContain('tomorrow second line');
    const full = await call('schedule.list', { includeInactive: true });
    expect(full.metadata.jobs.map((job: any) => job.id)).toEqual([done.id, cancelled.id, active.id]);
    expect(full.metadata.metrics).toEqual([
      { label: 'Active', value: 1 },
      { label: 'Done', value: 1 },
      { label: 'Cancelled', value: 1 },
      { label: 'Failed', value: 0 },
    ]);
    expect((await call('schedule.list', {})).title).toBe('scheduled messages');
  });

  it('after downtime, fires each missed job exactly once, then schedules from now', async () => {
    const before = await scheduler();
    await before.recurring({ everyHours: 1, body: 'hourly' });
    await before.once({ afterMinutes: 30, body: 'once' });
    // The gateway is down for five hours; a new host on the same state dir starts ticking.
    const after = await scheduler();
    const back = T0 + 5 * HOUR + 123;
    await after.tick(back);
    await after.tick(back + 50);
    await after.tick(back + HOUR - 1);
    expect(bodies().sort()).toEqual(['hourly', 'once']);
    const [hourly] = await after.list();
    expect(hourly).toMatchObject({ sentCount: 1, nextAt: new Date(back + HOUR).toISOString() });
    await after.tick(back + HOUR);
    expect(bodies().sort()).toEqual(['hourly', 'hourly', 'once']);
  });

  it('a job fired just before a kill (journalled, jobs.json not yet written) is delivered once after it', async () => {
    const file = outboxFile(stateDir, 'scheduler');
    const outbox = () => createOutbox({ file, logger: quietLogger() });
    for (const delivery of ['under way', 'done'] as const) {
      delivered = [];
      const before = await scheduler({
        outbox: outbox(),
        // Under way: the kill lands before the delivery ends, so the outbox keeps the message open.
        deliver: async (message) => {
          delivered.push(message);
          if (delivery === 'under way') await new Promise(() => {});
        },
      });
      const job = await before.once({ afterMinutes: 1, recipient: 'ops', body: `job ${delivery}` });
      const unsaved = await readFile(jobsPath(), 'utf8');
      await before.tick(T0 + MINUTE);
      expect(bodies()).toEqual([`job ${delivery}`]);
      // SIGKILL before the scheduler's write of jobs.json landed: the file still says the job is due.
      await writeFile(jobsPath(), unsaved);
      delivered = [];
      const journal = outbox();
      const after = await scheduler({ outbox: journal });
      // What the gateway does at start, before the first tick: the outbox's open messages again.
      for (const message of journal.open()) {
        delivered.push(message);
        journal.record(message.id, {
          state: 'delivered',
          attempts: 1,
          deliveredAt: new Date().toISOString(),
        });
        journal.settle(message.id);
      }
      await after.tick(T0 + MINUTE + 10);
      await after.tick(T0 + 2 * MINUTE);
      const expected = delivery === 'under way' ? [`job ${delivery}`] : [];
      expect({ delivery, bodies: bodies() }).toEqual({ delivery, bodies: expected });
      const [done] = (await after.list(true)).filter((entry) => entry.id === job.id);
      expect(done).toMatchObject({ status: 'done', sentCount: 1 });
    }
  });

  it('keeps its jobs in jobs.json, written atomically, and a new host reads them back', async () => {
    const first = await scheduler();
    const job = await first.recurring({ everyMinutes: 15, recipient: 'ops', body: 'persisted' });
    const onDisk = await readJobs();
    expect(onDisk).toEqual({ version: 1, jobs: [expect.objectContaining({ id: job.id, status: 'active' })] });
    expect(await readdir(path.dirname(jobsPath()))).toEqual(['jobs.json']);

    const second = await scheduler();
    expect((await second.list()).map((entry) => entry.id)).toEqual([job.id]);
    await second.tick(T0 + 15 * MINUTE);
    expect(bodies()).toEqual(['persisted']);
    // The store's receipt says delivered; the next tick counts the send.
    await second.tick(T0 + 15 * MINUTE + 1);
    expect((await readJobs()).jobs[0]).toMatchObject({
      sentCount: 1,
      lastSentAt: new Date(T0 + 15 * MINUTE).toISOString(),
    });

    // An edit made outside the controller (say, restoring a backup) is read again.
    const edited = await readJobs();
    edited.jobs[0].body = 'edited on disk';
    await writeFile(jobsPath(), JSON.stringify(edited));
    await second.tick(T0 + 30 * MINUTE);
    expect(bodies()).toEqual(['persisted', 'edited on disk']);
    expect(await readdir(path.dirname(jobsPath()))).toEqual(['jobs.json']);
  });

  it('moves a corrupt jobs.json aside, logs it, and goes on with an empty list', async () => {
    const { once, tick, list } = await scheduler();
    await once({ afterMinutes: 1, body: 'lost' });
    await writeFile(jobsPath(), '{"version": 1, "jobs": [');
    await tick(T0 + MINUTE);
    expect(delivered).toEqual([]);
    const files = await readdir(path.dirname(jobsPath()));
    expect(files).toEqual([expect.stringMatching(/^jobs\.json\.corrupt-2030-01-07T08-00-00-000Z$/)]);
    expect(await readFile(path.join(path.dirname(jobsPath()), String(files[0])), 'utf8')).toBe(
      '{"version": 1, "jobs": [',
    );
    expect(errors).toEqual([expect.stringMatching(/jobs\.json is corrupt \(invalid JSON.*moved it to/)]);
    expect(await list(true)).toEqual([]);

    await once({ afterMinutes: 2, body: 'fresh' });
    await tick(T0 + 2 * MINUTE);
    expect(bodies()).toEqual(['fresh']);

    // A well-formed file of the wrong shape is corrupt too.
    await writeFile(jobsPath(), JSON.stringify({ version: 1, jobs: { nope: true } }));
    expect(await list(true)).toEqual([]);
    expect(errors[1]).toContain('"jobs" is not an array');
    // Both corrupt copies are kept (same clock reading: the second gets a suffix).
    expect((await readdir(path.dirname(jobsPath()))).sort()).toEqual([
      'jobs.json.corrupt-2030-01-07T08-00-00-000Z',
      'jobs.json.corrupt-2030-01-07T08-00-00-000Z-2',
    ]);
  });

  it('refuses bad input with a clear message and writes nothing', async () => {
    const { call } = await scheduler();
    const refusals: Array<[string, Record<string, unknown>, RegExp]> = [
      ['schedule.once', { afterMinutes: 5 }, /body is required/],
      ['schedule.once', { afterMinutes: 5, body: '   ' }, /body is required/],
      ['schedule.once', { body: 'when?' }, /needs `at` \(an ISO timestamp\) or a positive delay/],
      ['schedule.once', { at: 'next tuesday', body: 'x' }, /at must be an ISO timestamp/],
      ['schedule.once', { afterMinutes: -5, body: 'x' }, /afterMinutes must not be negative/],
      ['schedule.once', { afterMs: '100', body: 'x' }, /afterMs must be a finite number/],
      ['schedule.once', { afterMs: 5, recipient: 'ghost', body: 'x' }, /unknown recipient ghost/],
      ['schedule.once', { afterMs: 5, channel: '#nowhere', body: 'x' }, /unknown channel #nowhere/],
      [
        'schedule.once',
        { afterMs: 5, recipient: 'ops', channel: '#ops', body: 'x' },
        /either recipient or channel, not both/,
      ],
      ['schedule.once', { afterMs: 5, priority: 'P9', body: 'x' }, /priority must be one of P0, P1, P2, P3/],
      ['schedule.once', { afterMs: 5, waitForQuiet: 'yes', body: 'x' }, /waitForQuiet must be true or false/],
      ['schedule.recurring', { body: 'x' }, /needs a positive interval .* or weekday plus time/],
      ['schedule.recurring', { weekday: 'mon', body: 'x' }, /or weekday plus time/],
      ['schedule.recurring', { weekday: 'funday', time: '09:00', body: 'x' }, /weekday must be one of sun/],
      [
        'schedule.recurring',
        { weekday: 'mon', time: '24:00', body: 'x' },
        /time must be HH:MM \(00:00 to 23:59/,
      ],
      [
        'schedule.recurring',
        { weekday: 'mon', time: '9am', body: 'x' },
        /time must be HH:MM \(00:00 to 23:59/,
      ],
      ['schedule.recurring', { everyHours: 1, weekday: 'mon', time: '09:00', body: 'x' }, /not both/],
      ['schedule.recurring', { everyHours: 1, startAt: 'soon', body: 'x' }, /startAt must be an ISO/],
      ['schedule.cancel', {}, /id is required/],
    ];
    for (const [tool, input, message] of refusals) {
      await expect(call(tool, input), `${tool} ${JSON.stringify(input)}`).rejects.toThrow(message);
    }
    await expect(call('schedule.once', { afterMs: 5, body: 'x' })).resolves.toBeDefined();
    expect((await readJobs()).jobs).toHaveLength(1);
  });

  it('serves the WebUI panel and actions from the same jobs', async () => {
    const { host, tick } = await scheduler();
    // A form sends its defaults (afterMinutes: 60) along with `at`: `at` wins.
    const created = await host.webui('schedule.once', {
      at: '2030-01-07T08:05:00Z',
      afterMinutes: 60,
      sender: 'scheduler',
      priority: 'P3',
      waitForQuiet: false,
      body: 'from the form',
    });
    const job = (created.metadata as any).job;
    expect(job.nextAt).toBe('2030-01-07T08:05:00.000Z');
    const weekly = await host.webui('schedule.recurring', { weekday: 'fri', time: '16:00', body: 'ship' });
    const weeklyId = (weekly.metadata as any).job.id;
    await host.webui('schedule.cancel', { id: weeklyId });
    await tick(T0 + 5 * MINUTE);
    expect(bodies()).toEqual(['from the form']);
    const panel = await host.webui('schedule.jobs', { includeInactive: true });
    expect((panel.metadata as any).jobs.map((entry: any) => [entry.id, entry.status])).toEqual([
      [job.id, 'done'],
      [weeklyId, 'cancelled'],
    ]);
  });
});

describe("the Schedules page's entries: pause, resume, run now, edit", () => {
  const job = (answer: { metadata?: unknown }) => (answer.metadata as any).job;

  it('a paused job sends nothing at its times; resumed, it goes on from its next time after now', async () => {
    const { host, tick, recurring, list } = await scheduler();
    const created = await recurring({ everyMinutes: 10, body: 'every ten' });
    const paused = job(await host.webui('schedule.pause', { id: created.id }));
    expect(paused).toMatchObject({ status: 'paused', pausedAt: new Date(T0).toISOString(), nextRuns: [] });
    await tick(T0 + 10 * MINUTE);
    await tick(T0 + 30 * MINUTE);
    expect(bodies()).toEqual([]);
    // Paused jobs are listed with the active ones, not hidden as inactive.
    expect((await list()).map((entry) => [entry.id, entry.status])).toEqual([[created.id, 'paused']]);
    await expect(host.webui('schedule.pause', { id: created.id })).rejects.toThrow(
      `${created.id} is paused; only active jobs can be paused`,
    );
    vi.setSystemTime(T0 + 35 * MINUTE);
    const resumed = job(await host.webui('schedule.resume', { id: created.id }));
    expect(resumed).toMatchObject({ status: 'active', nextAt: new Date(T0 + 45 * MINUTE).toISOString() });
    await tick(T0 + 45 * MINUTE);
    expect(bodies()).toEqual(['every ten']);
  });

  it('run now sends the message at once as a run of the job; a recurring job keeps its next time', async () => {
    const { host, tick, recurring, once } = await scheduler();
    const weekly = await recurring({ weekday: 'fri', time: '16:00', body: 'ship it' });
    const sent = job(await host.webui('schedule.runNow', { id: weekly.id }));
    expect(bodies()).toEqual(['ship it']);
    expect(sent.nextAt).toBe(weekly.nextAt);
    expect(sent.runs).toEqual([
      { at: new Date(T0).toISOString(), state: 'pending', messageId: expect.any(String) },
    ]);
    await tick(T0 + MINUTE);
    expect(bodies()).toEqual(['ship it']);
    const single = await once({ afterHours: 5, body: 'later, now' });
    expect(job(await host.webui('schedule.runNow', { id: single.id }))).toMatchObject({ status: 'active' });
    expect(bodies()).toEqual(['ship it', 'later, now']);
    await expect(host.webui('schedule.runNow', { id: single.id })).rejects.toThrow('waits for its receipt');
    // The receipt makes it done; its own time then sends nothing more.
    await tick(T0 + 2 * MINUTE);
    expect((await host.webui('schedule.jobs', { includeInactive: true })).metadata).toMatchObject({
      jobs: expect.arrayContaining([expect.objectContaining({ id: single.id, status: 'done' })]),
    });
    await tick(T0 + 6 * HOUR);
    expect(bodies()).toEqual(['ship it', 'later, now']);
    await expect(host.webui('schedule.runNow', { id: single.id })).rejects.toThrow('only active jobs');
  });

  it('edit changes the body, target and schedule; blank fields keep theirs; wrong fields are refused', async () => {
    const { host, tick, recurring, once } = await scheduler();
    const weekly = await recurring({ weekday: 'mon', time: '09:00', body: 'standup', recipient: 'ops' });
    // A form sends every field: blank ones keep the job's values.
    const edited = job(
      await host.webui('schedule.edit', {
        id: weekly.id,
        body: 'standup, moved',
        recipient: '',
        channel: '',
        cron: '30 8 * * *',
        timezone: 'Europe/Berlin',
      }),
    );
    expect(edited).toMatchObject({
      body: 'standup, moved',
      recipient: 'ops',
      schedule: { mode: 'cron', cron: '30 8 * * *', timezone: 'Europe/Berlin' },
      nextAt: '2030-01-08T07:30:00.000Z',
    });
    expect(edited.nextRuns[0]).toEqual({
      utc: '2030-01-08T07:30:00.000Z',
      local: '2030-01-08T08:30:00+01:00',
      timezone: 'Europe/Berlin',
    });
    const single = await once({ afterHours: 1, body: 'once' });
    await expect(host.webui('schedule.edit', { id: single.id, cron: '* * * * *' })).rejects.toThrow(
      `${single.id} is a once job: cron applies to recurring jobs`,
    );
    await expect(host.webui('schedule.edit', { id: weekly.id, recipient: 'nobody' })).rejects.toThrow(
      'unknown recipient nobody',
    );
    await expect(host.webui('schedule.edit', { id: 'sch_nope', body: 'x' })).rejects.toThrow(
      'no scheduled job sch_nope',
    );
    const moved = job(await host.webui('schedule.edit', { id: single.id, at: '2030-01-07T12:00:00Z' }));
    expect(moved.nextAt).toBe('2030-01-07T12:00:00.000Z');
    await tick(T0 + HOUR);
    expect(bodies()).toEqual([]);
    await tick(T0 + 4 * HOUR);
    expect(bodies()).toEqual(['once']);
    expect(delivered[0]).toMatchObject({ recipient: 'pm' });
  });
});

describe('the scheduler toolpack in a gateway', () => {
  let gateway: TestGateway | undefined;
  afterEach(async () => {
    await gateway?.dispose();
    gateway = undefined;
  });

  it('a model schedules a post to #lobby; it arrives in the local web chat', async () => {
    vi.useRealTimers();
    const model = await startFakeOpenAIServer();
    try {
      gateway = await startTestGateway({
        config: {
          tools: { toolpacks: [{ path: SCHEDULER, id: 'scheduler' }] },
          routes: { '#lobby': 'webchat:local' },
          models: {
            fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-test-scheduler' },
          },
          agents: { main: { model: 'fake', tools: ['schedule.*'] } },
          scheduler: { tickMs: 50 },
        },
      });
      const events = await openEvents(gateway, 'local');
      model.push({
        toolCalls: [
          {
            name: 'schedule.once',
            arguments: { channel: '#lobby', afterMs: 100, body: 'stand-up starts now' },
          },
        ],
      });
      model.push({ text: 'scheduled' });
      const response = await gateway.send('remind the lobby in a moment');
      expect(response.body.replies.at(-1).text).toBe('scheduled');
      const result = model.requests[1].messages.find((message: any) => message.role === 'tool');
      expect(result.content).toContain('Scheduled sch_');
      await expect
        .poll(() => events.events.filter((event) => event.type === 'reply').map((event) => event.data.text), {
          timeout: 15_000,
        })
        .toContain('scheduler: stand-up starts now');
      // Done once a tick has read the post's receipt (delivered), after the post reached the chat.
      const jobsFile = path.join(gateway.dir, 'data/toolpack-state/scheduler/jobs.json');
      await expect
        .poll(async () => JSON.parse(await readFile(jobsFile, 'utf8')).jobs, { timeout: 15_000 })
        .toEqual([expect.objectContaining({ status: 'done', sentCount: 1, channel: '#lobby' })]);
    } finally {
      await model.close();
    }
  });
});
