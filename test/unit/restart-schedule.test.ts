import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import type { RestartPromises } from '../../src/host/restart-promises.js';
import { createRestartSchedule } from '../../src/host/restart-schedule.js';
import type { RestartIntent } from '../../src/host/restart-sentinel.js';

/** The host's scheduled restart, in-process: fake timers, a notes double that only counts. */

const { logger } = createLogger({ level: 'silent' });

function setup() {
  const restarts: string[] = [];
  const promised: string[] = [];
  const notes = {
    promise(intents: RestartIntent[], note: { kind: string; message?: string }) {
      intents.push({
        id: `n${intents.length}`,
        kind: 'restart',
        status: 'promised',
        owner: 'h',
        promisedAt: 0,
      });
      promised.push(note.message ?? '');
      return Promise.resolve();
    },
  } as unknown as RestartPromises;
  const schedule = createRestartSchedule({
    notes,
    logger,
    // Like the host: the restart that runs takes the pending one's notes.
    async restart(reason) {
      schedule.take();
      restarts.push(reason);
    },
  });
  return { schedule, restarts, promised };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the restart schedule', () => {
  it('runs the restart after the delay (default 2 s), clamped to 0–60 s', async () => {
    const { schedule, restarts } = setup();
    expect(await schedule.schedule({ reason: 'a' })).toEqual({
      status: 'scheduled',
      delayMs: 2000,
      reason: 'a',
      coalesced: false,
    });
    await vi.advanceTimersByTimeAsync(1999);
    expect(restarts).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(restarts).toEqual(['a']);
    expect((await schedule.schedule({ delayMs: 10 ** 9 })).delayMs).toBe(60_000);
    expect((await schedule.schedule({ delayMs: -5 })).delayMs).toBe(0);
  });

  it('joins requests close together: the earliest time wins and every note is kept', async () => {
    const { schedule, restarts, promised } = setup();
    await schedule.schedule({ delayMs: 5000, reason: 'late', note: { kind: 'restart', message: 'one' } });
    const sooner = await schedule.schedule({
      delayMs: 1000,
      reason: 'soon',
      note: { kind: 'restart', message: 'two' },
    });
    expect(sooner).toMatchObject({ delayMs: 1000, reason: 'soon', coalesced: true });
    const joined = await schedule.schedule({
      delayMs: 3000,
      reason: 'later',
      note: { kind: 'restart', message: 'three' },
    });
    expect(joined).toMatchObject({ reason: 'soon', coalesced: true });
    expect(joined.delayMs).toBeLessThanOrEqual(1000);
    expect(promised).toEqual(['one', 'two', 'three']);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(restarts).toEqual(['soon']);
  });

  it('take cancels the pending restart and hands over its notes', async () => {
    const { schedule, restarts } = setup();
    await schedule.schedule({ delayMs: 1000, note: { kind: 'restart' } });
    expect(schedule.take()).toHaveLength(1);
    expect(schedule.take()).toEqual([]);
    await vi.advanceTimersByTimeAsync(5000);
    expect(restarts).toEqual([]);
  });

  it('after close nothing is scheduled and no timer is left', async () => {
    const { schedule, restarts } = setup();
    await schedule.schedule({ delayMs: 1000, note: { kind: 'restart' } });
    expect(schedule.close()).toHaveLength(1);
    expect(await schedule.schedule({ delayMs: 10 })).toMatchObject({ coalesced: false });
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(5000);
    expect(restarts).toEqual([]);
  });
});
