import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import {
  createLivenessWatch,
  deafReason,
  judgeLiveness,
  type Unheard,
} from '../../src/surfaces/channels/liveness.js';

/**
 * The inbound liveness check's decision (issue 32 item 4): given when something last arrived, what
 * the platform shows and now, is the connection hearing, quiet, suspect or deaf. The e2e side is
 * `test/integration/liveness-gateway.test.ts` (and the adapters' `*-liveness.test.ts`).
 */

const missed: Unheard = { channelId: 'C1', messageId: '1733580000.000100' };
const later: Unheard = { channelId: 'C2', messageId: '1733580009.000100' };
const view = (over: Partial<Parameters<typeof judgeLiveness>[0]> = {}) => ({
  lastArrivalAt: 0,
  now: 200_000,
  deafAfterMs: 180_000,
  unheard: undefined,
  shownBefore: undefined,
  ...over,
});

describe('judgeLiveness', () => {
  it('is hearing while something arrived within deafAfterMs, whatever the platform shows', () => {
    expect(judgeLiveness(view({ now: 179_999, unheard: missed, shownBefore: missed }))).toEqual({
      kind: 'hearing',
    });
  });

  it('is quiet when the platform shows nothing missed, however long the silence', () => {
    expect(judgeLiveness(view({ now: 10 * 86_400_000 }))).toEqual({ kind: 'quiet' });
    expect(judgeLiveness(view({ now: 10 * 86_400_000, shownBefore: missed }))).toEqual({ kind: 'quiet' });
  });

  it('suspects a message shown for the first time (it may still be on its way)', () => {
    expect(judgeLiveness(view({ now: 180_000, unheard: missed }))).toEqual({
      kind: 'suspect',
      unheard: missed,
    });
  });

  it('finds deaf a connection that missed a message at two checks in a row, with the silence', () => {
    expect(judgeLiveness(view({ unheard: later, shownBefore: missed }))).toEqual({
      kind: 'deaf',
      unheard: later,
      silentMs: 200_000,
    });
  });

  it('says why in one line naming the platform and the evidence', () => {
    expect(deafReason('Slack', { unheard: missed, silentMs: 200_400 })).toBe(
      'nothing arrived for 200 s while Slack shows a message in C1 (1733580000.000100) that never did',
    );
  });
});

describe('createLivenessWatch (on an injected clock)', () => {
  const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });
  afterEach(() => {
    vi.useRealTimers();
  });

  function watch(probe: () => Promise<Unheard | undefined>) {
    vi.useFakeTimers();
    const reasons: string[] = [];
    const probes = vi.fn(probe);
    const liveness = createLivenessWatch({
      settings: { deafAfterMs: 1000, checkIntervalMs: 250 },
      platform: 'Discord',
      probe: probes,
      deaf: (reason) => reasons.push(reason),
      logger,
      now: () => Date.now(),
    });
    liveness.start();
    return { liveness, reasons, probes };
  }

  it('asks nothing while events arrive, then finds deaf at the second check that shows the missed message', async () => {
    const { liveness, reasons, probes } = watch(async () => missed);
    for (let step = 0; step < 8; step += 1) {
      await vi.advanceTimersByTimeAsync(250);
      liveness.arrived();
    }
    expect(probes).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1000);
    expect(probes).toHaveBeenCalledTimes(1);
    expect(reasons).toEqual([]);
    await vi.advanceTimersByTimeAsync(250);
    expect(reasons).toEqual([
      'nothing arrived for 1 s while Discord shows a message in C1 (1733580000.000100) that never did',
    ]);
    // Told once: the watch stopped.
    await vi.advanceTimersByTimeAsync(5000);
    expect(probes).toHaveBeenCalledTimes(2);
    expect(reasons).toHaveLength(1);
  });

  it('never finds a quiet place deaf, over many checks', async () => {
    const { reasons, probes } = watch(async () => undefined);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(probes.mock.calls.length).toBeGreaterThan(100);
    expect(reasons).toEqual([]);
  });

  it('starts over when something arrives between two checks that show a message', async () => {
    const { liveness, reasons, probes } = watch(async () => missed);
    await vi.advanceTimersByTimeAsync(1000);
    expect(probes).toHaveBeenCalledTimes(1);
    liveness.arrived();
    await vi.advanceTimersByTimeAsync(1000);
    expect(reasons).toEqual([]);
    await vi.advanceTimersByTimeAsync(250);
    expect(reasons).toHaveLength(1);
  });
});
