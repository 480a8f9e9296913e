import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import type { ProjectMessage } from '../../src/extensions/toolpacks/index.js';
import { createStore, type Store } from '../../src/records/store/index.js';
import { type MessageStatus, startSchedulerHost } from '../helpers/scheduler-host.js';

/**
 * Delivery receipts, run history and overlap in the packaged scheduler: the controller asks
 * `store.messageStatus(id)` (the statuses here are set by the test, standing for the outbox's
 * journal) and counts a send only once it was delivered.
 */

const T0 = Date.parse('2030-01-07T08:00:00.000Z');
const MINUTE = 60_000;

let stateDir: string;
let store: Store;
let delivered: ProjectMessage[];
let statuses: Map<string, MessageStatus>;
let errors: string[];

beforeEach(async () => {
  stateDir = await realpath(await mkdtemp(path.join(tmpdir(), 'scheduler-receipts-')));
  delivered = [];
  statuses = new Map();
  errors = [];
  const logger = createLogger({ level: 'silent', destination: { write: () => undefined } }).logger;
  store = await createStore({ url: 'memory://', stateDir, logger });
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

/** A host with receipts: each sent message is `pending` until the test says otherwise. */
const scheduler = () =>
  startSchedulerHost({
    stateDir,
    store,
    deliver: (message) => {
      delivered.push(message);
      statuses.set(message.id, { state: 'pending', attempts: 1 });
    },
    messageStatus: (id) => statuses.get(id),
  });

const setStatus = (index: number, status: MessageStatus) => {
  const message = delivered[index];
  if (!message) throw new Error(`no message ${index}`);
  statuses.set(message.id, status);
};

const readJobs = async () =>
  JSON.parse(await readFile(path.join(stateDir, 'toolpack-state/scheduler/jobs.json'), 'utf8'));

describe('delivery receipts', () => {
  it('a once job is done only when its message was delivered', async () => {
    const { call, tick, list } = await scheduler();
    const job = (await call('schedule.once', { afterMinutes: 1, body: 'ping' })).metadata.job;
    await tick(T0 + MINUTE);
    await tick(T0 + 2 * MINUTE);
    expect(delivered).toHaveLength(1);
    const [pending] = (await list()).metadata.jobs;
    expect(pending).toMatchObject({ id: job.id, status: 'active', sentCount: 0 });
    expect(pending.runs).toEqual([
      { at: new Date(T0 + MINUTE).toISOString(), state: 'pending', messageId: delivered[0]?.id },
    ]);
    expect((await list()).output).toContain(`last run: ${new Date(T0 + MINUTE).toISOString()} pending`);

    setStatus(0, { state: 'delivered', attempts: 1, deliveredAt: new Date(T0 + 3 * MINUTE).toISOString() });
    await tick(T0 + 4 * MINUTE);
    expect(delivered).toHaveLength(1);
    const [done] = (await list(true)).metadata.jobs;
    expect(done).toMatchObject({
      status: 'done',
      sentCount: 1,
      completedAt: new Date(T0 + 3 * MINUTE).toISOString(),
      runs: [{ state: 'delivered', deliveredAt: new Date(T0 + 3 * MINUTE).toISOString(), attempts: 1 }],
    });
    expect((await readJobs()).jobs[0]).toMatchObject({ status: 'done', sentCount: 1 });
  });

  it('a route that refuses after the retries: the once job is failed, in schedule.list and the panel', async () => {
    const { host, call, tick, list } = await scheduler();
    const job = (await call('schedule.once', { afterMinutes: 1, channel: '#ops', body: 'to a closed room' }))
      .metadata.job;
    await tick(T0 + MINUTE);
    setStatus(0, { state: 'failed', attempts: 3, error: 'channel_not_found' });
    await tick(T0 + 2 * MINUTE);
    await tick(T0 + 10 * MINUTE);
    expect(delivered).toHaveLength(1); // not sent again: the store already retried
    const listed = await list(true);
    expect(listed.metadata.jobs[0]).toMatchObject({
      id: job.id,
      status: 'failed',
      sentCount: 0,
      lastError: 'channel_not_found',
      runs: [{ state: 'failed', error: 'channel_not_found', attempts: 3 }],
    });
    expect(listed.metadata.metrics).toContainEqual({ label: 'Failed', value: 1 });
    expect(listed.output).toContain(`- ${job.id} [failed/once]`);
    expect(listed.output).toContain('failed msg_');
    expect(listed.output).toContain('error: channel_not_found');
    expect((await list()).metadata.jobs).toEqual([]); // failed is not active
    const panel = await host.webui('schedule.jobs', { includeInactive: true });
    expect(panel.output).toContain('[failed/once]');
    expect(panel.output).toContain('error: channel_not_found');
  });

  it('a recurring job counts delivered sends, and a firing while the last is pending is skipped', async () => {
    const { call, tick, list } = await scheduler();
    const created = await call('schedule.recurring', { everyMinutes: 10, recipient: 'ops', body: 'sync' });
    expect(created.output).toContain('Schedule: every 10 min');
    const job = created.metadata.job;
    await tick(T0 + 10 * MINUTE);
    expect(delivered).toHaveLength(1);
    // The agent is busy: its wake turn has not started, the message is pending. No second copy.
    await tick(T0 + 20 * MINUTE);
    expect(delivered).toHaveLength(1);
    setStatus(0, { state: 'delivered', attempts: 1, deliveredAt: new Date(T0 + 25 * MINUTE).toISOString() });
    await tick(T0 + 30 * MINUTE);
    expect(delivered).toHaveLength(2);
    setStatus(1, { state: 'failed', attempts: 3, error: 'session closed' });
    await tick(T0 + 40 * MINUTE);
    expect(delivered).toHaveLength(3);

    const [listed] = (await list()).metadata.jobs;
    expect(listed).toMatchObject({ id: job.id, status: 'active', sentCount: 1, firedCount: 3 });
    expect(listed.runs.map((run: any) => [run.at, run.state])).toEqual([
      [new Date(T0 + 10 * MINUTE).toISOString(), 'delivered'],
      [new Date(T0 + 20 * MINUTE).toISOString(), 'skipped'],
      [new Date(T0 + 30 * MINUTE).toISOString(), 'failed'],
      [new Date(T0 + 40 * MINUTE).toISOString(), 'pending'],
    ]);
    expect(listed.runs[1].error).toBe(`the previous message ${delivered[0]?.id} is not delivered yet`);
    // Each send had its own key, so the store never took one for another.
    expect(delivered.map((message) => message.sendKey)).toEqual([
      `${job.id}:1`,
      `${job.id}:2`,
      `${job.id}:3`,
    ]);
    const output = (await list()).output;
    expect(output).toContain('skipped (previous message not delivered): 1 of the last 4 firings');
  });

  it('keeps the last 20 runs', async () => {
    const { call, tick, list } = await scheduler();
    await call('schedule.recurring', { everyMinutes: 1, recipient: 'ops', body: 'often' });
    for (let minute = 1; minute <= 25; minute++) {
      await tick(T0 + minute * MINUTE);
      setStatus(delivered.length - 1, { state: 'delivered', attempts: 1 });
    }
    await tick(T0 + 25 * MINUTE + 1);
    const [job] = (await list()).metadata.jobs;
    expect(job.sentCount).toBe(25);
    expect(job.runs).toHaveLength(20);
    expect(job.runs[0].at).toBe(new Date(T0 + 6 * MINUTE).toISOString());
    expect(job.runs.every((run: any) => run.state === 'delivered')).toBe(true);
  });

  it('a long wait keeps the pending run among the last 20, so it is neither sent twice nor lost', async () => {
    const { call, tick, list } = await scheduler();
    await call('schedule.recurring', { everyMinutes: 1, recipient: 'ops', body: 'busy agent' });
    for (let minute = 1; minute <= 30; minute++) await tick(T0 + minute * MINUTE);
    expect(delivered).toHaveLength(1);
    const [waiting] = (await list()).metadata.jobs;
    expect(waiting.runs).toHaveLength(20);
    expect(waiting.runs[0]).toMatchObject({ state: 'pending', messageId: delivered[0]?.id });
    expect(waiting.runs.slice(1).every((run: any) => run.state === 'skipped')).toBe(true);
    setStatus(0, { state: 'delivered', attempts: 1 });
    await tick(T0 + 31 * MINUTE);
    expect(delivered).toHaveLength(2);
    expect((await list()).metadata.jobs[0].sentCount).toBe(1);
  });

  it('a host without messageStatus (Suzumio) keeps today: done and counted when sent, runs say sent', async () => {
    const bare = await startSchedulerHost({
      stateDir,
      store,
      deliver: (message) => void delivered.push(message),
    });
    await bare.call('schedule.once', { afterMinutes: 1, body: 'plain' });
    await bare.tick(T0 + MINUTE);
    const [job] = (await bare.list(true)).metadata.jobs;
    expect(job).toMatchObject({
      status: 'done',
      sentCount: 1,
      runs: [{ state: 'sent', messageId: delivered[0]?.id }],
    });
  });

  it('a pending send moved to a host without receipts counts as sent there', async () => {
    const { call, tick } = await scheduler();
    await call('schedule.once', { afterMinutes: 1, body: 'moved' });
    await tick(T0 + MINUTE);
    const bare = await startSchedulerHost({
      stateDir,
      store,
      deliver: (message) => void delivered.push(message),
    });
    await bare.tick(T0 + 2 * MINUTE);
    const [job] = (await bare.list(true)).metadata.jobs;
    expect(job).toMatchObject({ status: 'done', sentCount: 1, runs: [{ state: 'sent' }] });
    expect(delivered).toHaveLength(1);
  });

  it('a message the store has no status for is given up after an hour, so a once job never waits forever', async () => {
    const { call, tick, list } = await scheduler();
    await call('schedule.once', { afterMinutes: 1, body: 'lost' });
    await tick(T0 + MINUTE);
    statuses.clear();
    await tick(T0 + 30 * MINUTE);
    expect((await list()).metadata.jobs[0]).toMatchObject({ status: 'active' });
    await tick(T0 + 61 * MINUTE);
    const [job] = (await list(true)).metadata.jobs;
    expect(job).toMatchObject({ status: 'failed', runs: [{ state: 'failed' }] });
    expect(job.runs[0].error).toMatch(/no delivery status for msg_/);
  });
});
