import { describe, expect, it } from 'vitest';
import { runKillLoop } from '../helpers/kill-loop.js';

// The kill loop (bench/kill-loop.ts runs it 50 times): the built gateway SIGKILLed at random points
// while messages, restarts, config patches, spawns, schedules, Slack events (half with a slowly
// downloading file) and Discord messages (also sent while it is down) are in flight. Whatever it
// acknowledged is kept once and answered; it starts every time. A fixed seed keeps a failure
// reproducible (SEED=<seed> KILLS=<n> npx tsx bench/kill-loop.ts).

describe('the kill loop', () => {
  it('loses, doubles and leaves unanswered nothing it acknowledged, over 12 SIGKILLs', async () => {
    // Progress and the reason of any failed start go to the test's output.
    const report = await runKillLoop({ kills: 12, seed: 20261201, onProgress: (line) => console.log(line) });
    // What resuming did (issue 32 §1), shown as bench/kill-loop.ts shows it; not checked below but `resumed`.
    console.log(
      `turns resumed: ${report.resumed}; calls ended as unknown: ${report.endedAsUnknown}; turns ended instead: ${report.endedNotResumed}; ` +
        `sub-agent runs resumed: ${report.subagentRunsResumed}; ended interrupted instead: ${report.subagentRunsEndedNotResumed}`,
    );
    expect(report.details).toEqual([]);
    expect({ failedStarts: report.failedStarts, kills: report.kills }).toEqual({
      failedStarts: 0,
      kills: 12,
    });
    expect(Object.values(report.lost).reduce((sum, count) => sum + count, 0)).toBe(0);
    expect(Object.values(report.doubled).reduce((sum, count) => sum + count, 0)).toBe(0);
    expect(report.unanswered).toEqual({ spawn: 0, schedule: 0, slack: 0, discord: 0 });
    // Turns cut short were resumed from their transcripts (issue 32 §1): with four users' messages
    // in flight, a kill nearly always cuts one. Calls not run again (`endedAsUnknown`) are reported
    // by bench/kill-loop.ts, not checked here: a kill inside a sessions_spawn call is rare.
    expect(report.resumed).toBeGreaterThan(0);
    // The loop did exercise every kind.
    expect(Object.entries(report.acknowledged).filter(([, count]) => count === 0)).toEqual([]);
  }, 600_000);
});
