import { describe, expect, it } from 'vitest';
import { failedStartPause, LIVE_LIMIT_MS, pauseText } from '../../src/cli/failed-start-pause.js';

describe('failedStartPause', () => {
  it('waits nothing outside pm2 (a terminal gets its exit at once)', () => {
    expect(failedStartPause({}, 1000)).toBeUndefined();
  });

  it("grows with pm2's unstable restarts in a row: 1 s, 2 s, 4 s, then 5 s", () => {
    const pauses = [undefined, '1', '2', '3', '7', '100'].map(
      (count) => failedStartPause({ pm_id: '0', unstable_restarts: count }, 1000)?.milliseconds,
    );
    expect(pauses).toEqual([1000, 2000, 4000, 5000, 5000, 5000]);
  });

  it("keeps a failed process's life within LIVE_LIMIT_MS (below pm2's listen_timeout)", () => {
    expect(failedStartPause({ pm_id: '0', unstable_restarts: '3' }, LIVE_LIMIT_MS - 1500)?.milliseconds).toBe(
      1500,
    );
    expect(failedStartPause({ pm_id: '0', unstable_restarts: '3' }, LIVE_LIMIT_MS + 1)?.milliseconds).toBe(0);
  });

  it('says how long, why, and what to do', () => {
    expect(pauseText({ milliseconds: 2000, inARow: 1 })).toMatch(
      /^switchboard: waiting 2 s before exiting .*pm2 restart switchboard/,
    );
  });
});
