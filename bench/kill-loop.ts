import { runKillLoop } from '../test/helpers/kill-loop.js';
import { describeMachine, printTable } from './report.js';

/**
 * The kill loop: SIGKILL the built gateway at random points, 50 times, while web chat messages,
 * restarts, config patches, sub-agent spawns, schedules, Slack events (HTTP mode, half with a slowly
 * downloading file) and Discord messages (also sent while it is down) are in flight; then count what it had
 * acknowledged and did not keep (lost), kept twice (doubled), or never answered. `KILLS` and `SEED`
 * in the environment change the run.
 */

const kills = Number(process.env.KILLS ?? 50);
const seed = Number(process.env.SEED ?? Date.now() % 100_000);

console.log(`kill loop: ${kills} SIGKILLs, seed ${seed}; ${describeMachine()}`);
const started = Date.now();
const report = await runKillLoop({ kills, seed, onProgress: (line) => console.log(`  ${line}`) });
printTable(
  ['kind', 'acknowledged', 'lost', 'doubled', 'unanswered'],
  (['message', 'restart', 'patch', 'spawn', 'schedule', 'slack', 'discord'] as const).map((kind) => [
    kind,
    String(report.acknowledged[kind]),
    String(report.lost[kind]),
    String(report.doubled[kind]),
    kind === 'spawn' || kind === 'schedule' || kind === 'slack' || kind === 'discord'
      ? String(report.unanswered[kind])
      : '',
  ]),
);
console.log(
  `turns resumed after a restart: ${report.resumed}; calls ended as unknown (not run again): ${report.endedAsUnknown}; interrupted turns ended instead: ${report.endedNotResumed}`,
);
console.log(
  `sub-agent runs resumed after a restart: ${report.subagentRunsResumed}; ended interrupted instead: ${report.subagentRunsEndedNotResumed}`,
);
console.log(
  `kills: ${report.kills}; starts that failed: ${report.failedStarts}; ${((Date.now() - started) / 1000).toFixed(0)} s`,
);
for (const line of report.details.slice(0, 30)) console.log(`  ${line}`);
