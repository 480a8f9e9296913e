import { describe, expect, it } from 'vitest';
import { RESCUE_PLAN_TTL_MS, RescuePlans } from '../../src/engine/routing/commands/rescue-plans.js';
import { breakerVerdict, type StartEntry } from '../../src/host/start-record.js';

// The crash-loop breaker's rule (issue 32 §2) and /rescue's plans (§3), as pure cores.

const LIMITS = { threshold: 3, windowMs: 5 * 60_000 };
const NOW = Date.parse('2026-12-07T05:00:00Z');
const start = (secondsAgo: number, extra: Partial<StartEntry> = {}): StartEntry => ({
  id: `s${secondsAgo}`,
  pid: 1000 + secondsAgo,
  at: new Date(NOW - secondsAgo * 1000).toISOString(),
  ...extra,
});

describe('breakerVerdict', () => {
  it('trips on 3 unclean starts within 5 minutes, naming each', () => {
    const verdict = breakerVerdict(
      [start(200, { readyAt: 'x', cause: 'Error: tick failed' }), start(120), start(30, { readyAt: 'y' })],
      NOW,
      LIMITS,
    );
    expect(verdict.safeMode).toBe(true);
    expect(verdict.unclean).toHaveLength(3);
    expect(verdict.reason).toMatch(/^3 unclean starts in 5 min \(/);
    expect(verdict.reason).toContain('died within a minute of ready: Error: tick failed');
    expect(verdict.reason).toContain('never reached ready');
  });

  it('does not trip on 2, on clean starts, on starts older than the window, or before an owner cleared it', () => {
    expect(breakerVerdict([start(100), start(50)], NOW, LIMITS).safeMode).toBe(false);
    expect(breakerVerdict([start(100), start(50, { clean: true }), start(10)], NOW, LIMITS).safeMode).toBe(
      false,
    );
    expect(breakerVerdict([start(400), start(50), start(10)], NOW, LIMITS).safeMode).toBe(false);
    const cleared = new Date(NOW - 20_000).toISOString();
    expect(breakerVerdict([start(100), start(50), start(30), start(10)], NOW, LIMITS, cleared).safeMode).toBe(
      false,
    );
    expect(breakerVerdict([start(100), start(50), start(30), start(10)], NOW, LIMITS).safeMode).toBe(true);
  });
});

describe('RescuePlans', () => {
  const clock = () => {
    let now = NOW;
    return { now: () => now, advance: (ms: number) => (now += ms) };
  };

  it('runs a plan once, for the owner who asked, on its code', () => {
    const plans = new RescuePlans<string>({ now: clock().now });
    const plan = plans.propose('slack:UOWNER', 'restart');
    expect(plan.code).toMatch(/^[a-z2-9]{6}$/);
    const taken = plans.take('slack:UOWNER', plan.code);
    expect(taken).toEqual({ ok: true, value: plan });
    expect(plans.take('slack:UOWNER', plan.code)).toEqual({
      ok: false,
      error: `no pending rescue plan has the code ${plan.code}; nothing was run`,
    });
  });

  it('refuses a wrong code and another owner without spending the plan', () => {
    const plans = new RescuePlans<string>({ now: clock().now });
    const plan = plans.propose('slack:UOWNER', 'restart');
    expect(plans.take('slack:UOWNER', 'zzzzzz').ok).toBe(false);
    expect(plans.take('slack:UOTHER', plan.code)).toEqual({
      ok: false,
      error: `plan ${plan.code} was asked for by slack:UOWNER, not slack:UOTHER; nothing was run`,
    });
    expect(plans.take('slack:UOWNER', plan.code).ok).toBe(true);
  });

  it('refuses a stale code: expired after a minute, or revoked by a newer plan', () => {
    const time = clock();
    const plans = new RescuePlans<string>({ now: time.now });
    const old = plans.propose('slack:UOWNER', 'restart');
    time.advance(RESCUE_PLAN_TTL_MS + 1);
    expect(plans.take('slack:UOWNER', old.code)).toEqual({
      ok: false,
      error: `plan ${old.code} expired (plans wait 60 s); nothing was run`,
    });
    const first = plans.propose('slack:UOWNER', 'restart');
    const second = plans.propose('slack:UOWNER', 'leave-safe-mode');
    expect(plans.take('slack:UOWNER', first.code).ok).toBe(false);
    expect(plans.take('slack:UOWNER', second.code)).toMatchObject({
      ok: true,
      value: { step: 'leave-safe-mode' },
    });
  });
});
