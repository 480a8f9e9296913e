import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRunSignal } from '../../src/engine/agents/run-signal.js';

/** A run's signal: the turn's abort or the run's time limit, whichever comes first; nothing left behind. */

afterEach(() => {
  vi.useRealTimers();
});

describe('a run signal', () => {
  it("follows the turn's abort with its reason, and its timer no longer counts", () => {
    vi.useFakeTimers();
    const turn = new AbortController();
    const run = createRunSignal(turn.signal, 1, 'run-1');
    turn.abort(new Error('stopped by /stop'));
    vi.advanceTimersByTime(2000);
    expect(run.signal.reason).toMatchObject({ message: 'stopped by /stop' });
    run.dispose();
  });

  it('aborts with TURN_TIMEOUT naming the run at its time limit', () => {
    vi.useFakeTimers();
    const turn = new AbortController();
    const run = createRunSignal(turn.signal, 3, 'run-2');
    vi.advanceTimersByTime(2999);
    expect(run.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(run.timedOut()).toBe(true);
    expect(run.signal.reason).toMatchObject({
      code: 'TURN_TIMEOUT',
      message: 'run run-2 timed out after 3 s',
    });
    turn.abort(new Error('later'));
    expect(run.signal.reason).toMatchObject({ code: 'TURN_TIMEOUT' });
    run.dispose();
  });

  it('starts aborted for an aborted turn, and leaves no listener or timer once disposed', () => {
    vi.useFakeTimers();
    const aborted = new AbortController();
    aborted.abort(new Error('before'));
    const early = createRunSignal(aborted.signal, 1, 'run-3');
    expect(early.signal.reason).toMatchObject({ message: 'before' });
    early.dispose();
    const turn = new AbortController();
    const run = createRunSignal(turn.signal, 1, 'run-4');
    expect(getEventListeners(turn.signal, 'abort')).toHaveLength(1);
    run.dispose();
    expect(getEventListeners(turn.signal, 'abort')).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
