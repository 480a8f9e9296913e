import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import type { ProjectMessage } from '../../src/extensions/toolpacks/index.js';
import { createStore, type Store } from '../../src/records/store/index.js';
import { type SchedulerHostOptions, startSchedulerHost } from '../helpers/scheduler-host.js';

/**
 * Cron and time zones in the packaged scheduler toolpack: its controller driven with a controlled
 * clock (fake Date for tool calls, the tick's `now`), on the real store and jobs.json.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const at = (text: string) => Date.parse(text);

let stateDir: string;
let store: Store;
let delivered: ProjectMessage[];
let errors: string[];

beforeEach(async () => {
  stateDir = await realpath(await mkdtemp(path.join(tmpdir(), 'scheduler-cron-')));
  delivered = [];
  errors = [];
  const logger = createLogger({ level: 'silent', destination: { write: () => undefined } }).logger;
  store = await createStore({ url: 'memory://', stateDir, logger });
  vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => {
    errors.push(parts.map(String).join(' '));
  });
  vi.useFakeTimers({ toFake: ['Date'] });
});

afterEach(async () => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  await store.close();
  await rm(stateDir, { recursive: true, force: true });
});

const scheduler = (options: Partial<SchedulerHostOptions> = {}) =>
  startSchedulerHost({ stateDir, store, deliver: (message) => void delivered.push(message), ...options });

const sentTimes = (sends: Array<{ at: number }>) => sends.map((send) => new Date(send.at).toISOString());
const readJobs = async () =>
  JSON.parse(await readFile(path.join(stateDir, 'toolpack-state/scheduler/jobs.json'), 'utf8'));

/** Ticks every `stepMs` from `from` to `to` (inclusive) and returns when each send happened. */
async function tickThrough(
  tick: (now: number) => Promise<unknown>,
  from: number,
  to: number,
  stepMs: number,
) {
  const sends: Array<{ at: number; body: string }> = [];
  for (let now = from; now <= to; now += stepMs) {
    const before = delivered.length;
    await tick(now);
    for (const message of delivered.slice(before)) sends.push({ at: now, body: message.body });
  }
  return sends;
}

describe('cron jobs in a time zone', () => {
  it('0 9 * * 1-5 in Europe/Berlin fires at 09:00 local across the spring-forward change', async () => {
    vi.setSystemTime(at('2026-03-26T10:00:00Z')); // Thursday, 11:00 CET
    const { recurring, tick, list } = await scheduler();
    const created = await recurring({ cron: '0 9 * * 1-5', timezone: 'Europe/Berlin', body: 'stand-up' });
    expect(created.metadata.job.schedule).toEqual({
      mode: 'cron',
      cron: '0 9 * * 1-5',
      timezone: 'Europe/Berlin',
    });
    expect(created.output).toContain('Time zone: Europe/Berlin');
    // The next three, in the job's zone and in UTC: the offset changes over the weekend.
    expect(created.output).toContain(
      [
        'Next runs:',
        '  2026-03-27T09:00:00+01:00 Europe/Berlin = 2026-03-27T08:00:00.000Z UTC',
        '  2026-03-30T09:00:00+02:00 Europe/Berlin = 2026-03-30T07:00:00.000Z UTC',
        '  2026-03-31T09:00:00+02:00 Europe/Berlin = 2026-03-31T07:00:00.000Z UTC',
      ].join('\n'),
    );
    const sends = await tickThrough(tick, at('2026-03-26T10:00:00Z'), at('2026-04-01T12:00:00Z'), 5 * MINUTE);
    expect(sentTimes(sends)).toEqual([
      '2026-03-27T08:00:00.000Z',
      '2026-03-30T07:00:00.000Z',
      '2026-03-31T07:00:00.000Z',
      '2026-04-01T07:00:00.000Z',
    ]);
    const listed = await list();
    expect(listed.metadata.jobs[0].nextRuns.map((run: any) => run.local)).toEqual([
      '2026-04-02T09:00:00+02:00',
      '2026-04-03T09:00:00+02:00',
      '2026-04-06T09:00:00+02:00',
    ]);
    expect(listed.output).toContain('schedule: cron "0 9 * * 1-5" Europe/Berlin');
    expect(listed.output).toContain(
      '  2026-04-02T09:00:00+02:00 Europe/Berlin = 2026-04-02T07:00:00.000Z UTC',
    );
  });

  it('and across the fall-back change, back to 08:00 UTC', async () => {
    vi.setSystemTime(at('2026-10-23T10:00:00Z')); // Friday, 12:00 CEST
    const { recurring, tick } = await scheduler();
    await recurring({ cron: '0 9 * * 1-5', timezone: 'Europe/Berlin', body: 'stand-up' });
    const sends = await tickThrough(tick, at('2026-10-23T10:00:00Z'), at('2026-10-27T12:00:00Z'), 5 * MINUTE);
    expect(sentTimes(sends)).toEqual(['2026-10-26T08:00:00.000Z', '2026-10-27T08:00:00.000Z']);
  });

  it('a 02:30 job fires once on a spring-forward day (at 03:00 local) and once on a fall-back day', async () => {
    vi.setSystemTime(at('2026-03-28T12:00:00Z'));
    const { recurring, tick } = await scheduler();
    await recurring({ cron: '30 2 * * *', timezone: 'Europe/Berlin', body: 'nightly' });
    const spring = await tickThrough(
      tick,
      at('2026-03-28T12:00:00Z'),
      at('2026-03-30T12:00:00Z'),
      5 * MINUTE,
    );
    // 02:30 does not exist on 29 March: it fires at 03:00 CEST (01:00 UTC), once.
    expect(sentTimes(spring)).toEqual(['2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z']);

    delivered = [];
    vi.setSystemTime(at('2026-10-24T12:00:00Z'));
    const autumn = await scheduler();
    await autumn.recurring({ cron: '30 2 * * *', timezone: 'Europe/Berlin', body: 'autumn' });
    const fall = await tickThrough(
      autumn.tick,
      at('2026-10-24T12:00:00Z'),
      at('2026-10-26T12:00:00Z'),
      5 * MINUTE,
    );
    // 02:30 happens twice on 25 October: it fires at the first (CEST, 00:30 UTC) only.
    expect(
      fall.filter((send) => send.body === 'autumn').map((send) => new Date(send.at).toISOString()),
    ).toEqual(['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
  });

  it('a 6-field job fires on its seconds', async () => {
    vi.setSystemTime(at('2030-01-07T08:00:05Z'));
    const { recurring, tick } = await scheduler();
    const created = await recurring({
      cron: '*/20 * * * * *',
      timezone: 'UTC',
      recipient: 'ops',
      body: 'tick',
    });
    expect(created.metadata.job.nextRuns.map((run: any) => run.utc)).toEqual([
      '2030-01-07T08:00:20.000Z',
      '2030-01-07T08:00:40.000Z',
      '2030-01-07T08:01:00.000Z',
    ]);
    const sends = await tickThrough(tick, at('2030-01-07T08:00:05Z'), at('2030-01-07T08:01:05Z'), 1_000);
    expect(sentTimes(sends)).toEqual([
      '2030-01-07T08:00:20.000Z',
      '2030-01-07T08:00:40.000Z',
      '2030-01-07T08:01:00.000Z',
    ]);
  });

  it('weekday plus time takes a timezone too, or scheduler.timezone, or UTC in a host without it', async () => {
    vi.setSystemTime(at('2026-03-26T10:00:00Z'));
    const { recurring } = await scheduler({ timezone: 'Asia/Tokyo' });
    const zoned = await recurring({
      weekday: 'mon',
      time: '09:00',
      timezone: 'America/New_York',
      body: 'ny',
    });
    expect(zoned.metadata.job.schedule).toEqual({
      mode: 'weekly',
      weekday: 'mon',
      hour: 9,
      minute: 0,
      timezone: 'America/New_York',
    });
    expect(zoned.metadata.job.nextAt).toBe('2026-03-30T13:00:00.000Z'); // EDT, UTC-4
    const tokyo = await recurring({ weekday: 'mon', time: '09:00', body: 'tokyo' });
    expect(tokyo.metadata.job.nextAt).toBe('2026-03-30T00:00:00.000Z');
    expect(tokyo.output).toContain('Time zone: Asia/Tokyo (the default, from scheduler.timezone)');
    const bare = await scheduler({ timezone: null });
    const utc = await bare.recurring({ weekday: 'mon', time: '09:00', body: 'utc' });
    expect(utc.metadata.job.nextAt).toBe('2026-03-30T09:00:00.000Z');
    expect(utc.output).toContain('Time zone: UTC (no timezone given');
  });

  it('a cron job without a timezone takes scheduler.timezone, or UTC when the host has none, and says so', async () => {
    vi.setSystemTime(at('2026-03-26T10:00:00Z'));
    const configured = await scheduler({ timezone: 'Asia/Tokyo' });
    const tokyo = await configured.recurring({ cron: '0 9 * * *', body: 'tokyo' });
    expect(tokyo.metadata.job.schedule.timezone).toBe('Asia/Tokyo');
    expect(tokyo.metadata.job.nextAt).toBe('2026-03-27T00:00:00.000Z');
    expect(tokyo.output).toContain('Time zone: Asia/Tokyo (the default, from scheduler.timezone)');

    const bare = await scheduler({ timezone: null });
    const utc = await bare.recurring({ cron: '0 9 * * *', body: 'utc' });
    expect(utc.metadata.job.schedule.timezone).toBe('UTC');
    expect(utc.output).toContain(
      'Time zone: UTC (no timezone given, and this host offers no scheduler.timezone',
    );
  });

  it('reads an at or startAt without an offset in the configured zone, never in the server zone', async () => {
    const serverZone = process.env.TZ;
    process.env.TZ = 'America/Los_Angeles'; // what Date.parse would use for an offset-less time
    try {
      vi.setSystemTime(at('2026-03-26T10:00:00Z'));
      const berlin = await scheduler({ timezone: 'Europe/Berlin' });
      const once = await berlin.call('schedule.once', { at: '2026-03-30T09:00', body: 'local' });
      expect(once.metadata.job).toMatchObject({
        nextAt: '2026-03-30T07:00:00.000Z',
        schedule: { at: '2026-03-30T09:00', timezone: 'Europe/Berlin' },
      });
      expect(once.output).toContain(
        'Time zone: Europe/Berlin (the default, from scheduler.timezone); at has no UTC offset, so it is read in this zone',
      );
      const absolute = await berlin.call('schedule.once', { at: '2026-03-30T09:00:00Z', body: 'utc' });
      expect(absolute.metadata.job.nextAt).toBe('2026-03-30T09:00:00.000Z');
      expect(absolute.output).not.toContain('Time zone');
      // A skipped wall time is taken an hour later; a repeated one is the first.
      const gap = await berlin.call('schedule.once', { at: '2026-03-29T02:30', body: 'gap' });
      expect(gap.metadata.job.nextAt).toBe('2026-03-29T01:30:00.000Z');
      const repeated = await berlin.call('schedule.once', { at: '2026-10-25T02:30', body: 'twice' });
      expect(repeated.metadata.job.nextAt).toBe('2026-10-25T00:30:00.000Z');
      const started = await berlin.recurring({
        cron: '0 * * * *',
        timezone: 'Asia/Tokyo',
        startAt: '2026-03-30T09:00',
        body: 'from nine in Tokyo',
      });
      expect(started.metadata.job.nextAt).toBe('2026-03-30T00:00:00.000Z');

      const bare = await scheduler({ timezone: null });
      const utc = await bare.call('schedule.once', { at: '2026-03-30T09:00', body: 'fallback' });
      expect(utc.metadata.job.nextAt).toBe('2026-03-30T09:00:00.000Z');
    } finally {
      if (serverZone === undefined) delete process.env.TZ;
      else process.env.TZ = serverZone;
    }
  });

  it('refuses an invalid expression or zone, naming the field, and writes nothing', async () => {
    vi.setSystemTime(at('2026-03-26T10:00:00Z'));
    const { recurring, list } = await scheduler();
    const refusals: Array<[Record<string, unknown>, RegExp]> = [
      [{ cron: '0 25 * * *' }, /cron "0 25 \* \* \*" is invalid: the hour field "25" is invalid/],
      [{ cron: '*/5 * * * 8' }, /the dayOfWeek field "8" is invalid/],
      [{ cron: '61 * * * * *' }, /the second field "61" is invalid/],
      [{ cron: '0 9 * *' }, /cron must have 5 fields .* or 6 \(seconds first\), got 4/],
      [{ cron: '0 0 9 * * 1-5 2030' }, /cron must have 5 fields .* got 7/],
      [{ cron: 42 }, /cron must be a string/],
      [{ cron: '0 0 30 2 *' }, /the dayOfMonth field "30" is invalid \(30 2 is an impossible day/],
      [
        { cron: '0 9 * * *', timezone: 'Mars/Olympus' },
        /timezone must be an IANA time zone .* got "Mars\/Olympus"/,
      ],
      [{ cron: '0 9 * * *', timezone: '+01:00' }, /timezone must be an IANA time zone/],
      [{ weekday: 'mon', time: '09:00', timezone: 'Nowhere' }, /timezone must be an IANA time zone/],
      [{ everyHours: 1, timezone: 'Europe/Berlin' }, /an every\* interval has none/],
      [{ cron: '0 9 * * *', everyHours: 1 }, /not both \(got an every\* interval and cron\)/],
      [{ cron: '0 9 * * *', weekday: 'mon', time: '09:00' }, /not both \(got weekday plus time and cron\)/],
      [{ timezone: 'UTC' }, /needs a positive interval .* or cron/],
    ];
    for (const [input, message] of refusals) {
      await expect(recurring({ ...input, body: 'x' }), JSON.stringify(input)).rejects.toThrow(message);
    }
    expect((await list(true)).metadata.jobs).toEqual([]);
  });

  it('a job persisted across a restart keeps its next time and fires once at it', async () => {
    vi.setSystemTime(at('2026-03-26T10:00:00Z'));
    const before = await scheduler();
    const created = await before.recurring({ cron: '15 8 * * *', timezone: 'Europe/Berlin', body: 'daily' });
    const nextAt = created.metadata.job.nextAt;
    expect(nextAt).toBe('2026-03-27T07:15:00.000Z');
    expect((await readJobs()).jobs[0]).toMatchObject({ nextAt, schedule: { cron: '15 8 * * *' } });

    vi.setSystemTime(at('2026-03-26T18:00:00Z'));
    const after = await scheduler(); // a new host on the same state dir: a gateway restart
    expect((await after.list()).metadata.jobs.map((job: any) => job.nextAt)).toEqual([nextAt]);
    const sends = await tickThrough(
      after.tick,
      at('2026-03-26T18:00:00Z'),
      at('2026-03-27T08:00:00Z'),
      5 * MINUTE,
    );
    expect(sentTimes(sends)).toEqual([nextAt]);
  });

  it('a job edited on disk to an unknown zone is listed in UTC, fires once and fails, and the rest go on', async () => {
    vi.setSystemTime(at('2026-03-26T10:00:00Z'));
    const { recurring, tick, list } = await scheduler();
    await recurring({ cron: '0 * * * *', timezone: 'Europe/Berlin', body: 'broken' });
    await recurring({ cron: '0 * * * *', timezone: 'UTC', body: 'fine' });
    const file = path.join(stateDir, 'toolpack-state/scheduler/jobs.json');
    const edited = await readJobs();
    edited.jobs[0].schedule.timezone = 'Mars/Olympus';
    await writeFile(file, JSON.stringify(edited));
    const listed = await list();
    expect(listed.metadata.jobs[0].nextRuns).toEqual([
      { utc: '2026-03-26T11:00:00.000Z', local: '2026-03-26T11:00:00+00:00', timezone: 'UTC' },
    ]);
    const sends = await tickThrough(tick, at('2026-03-26T11:00:00Z'), at('2026-03-26T12:00:00Z'), MINUTE);
    expect(
      sends.filter((send) => send.body === 'fine').map((send) => new Date(send.at).toISOString()),
    ).toEqual(['2026-03-26T11:00:00.000Z', '2026-03-26T12:00:00.000Z']);
    // The broken one fired at its stored time; its next time cannot be computed, so it is failed.
    expect(sends.filter((send) => send.body === 'broken')).toHaveLength(1);
    const broken = (await list(true)).metadata.jobs[0];
    expect(broken).toMatchObject({ status: 'failed', lastError: expect.stringContaining('Mars/Olympus') });
    expect(errors.some((line) => line.includes('its schedule cannot be computed'))).toBe(true);
  });

  it('after downtime a cron job fires once, then resumes at its next time', async () => {
    vi.setSystemTime(at('2026-03-26T10:00:00Z'));
    const before = await scheduler();
    await before.recurring({ cron: '0 * * * *', timezone: 'UTC', body: 'hourly' });
    const after = await scheduler();
    const back = at('2026-03-26T15:20:00Z'); // five firings were missed
    const sends = await tickThrough(after.tick, back, back + HOUR, MINUTE);
    expect(sentTimes(sends)).toEqual(['2026-03-26T15:20:00.000Z', '2026-03-26T16:00:00.000Z']);
  });
});
