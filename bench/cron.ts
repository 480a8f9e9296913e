import { Cron } from 'croner';
import { createTask } from 'node-cron';
import { describeMachine, printFigures, printTable } from './report.js';

/**
 * Cron fire times: croner (what the packaged scheduler computes with) beside node-cron 4 (the
 * design's choice, which the scheduler still validates with). First the answers across DST
 * changes, then the cost of "the next three fire times" (what `schedule.list` shows per job).
 * node-cron exposes next runs only from the current clock (`getNextRuns`), so its walker is
 * reached through the task's `timeMatcher`, as its `getNextRuns` does. Nothing here asserts.
 */

type NextTimes = (expression: string, timezone: string, from: Date, count: number) => Date[];

const withCroner: NextTimes = (expression, timezone, from, count) =>
  new Cron(expression, { timezone, paused: true }).nextRuns(count, from);

const withNodeCron: NextTimes = (expression, timezone, from, count) => {
  const task = createTask(expression, () => {}, { timezone }) as unknown as {
    timeMatcher: { getNextMatch(date: Date): Date };
  };
  const times: Date[] = [];
  let at = from;
  for (let index = 0; index < count; index += 1) {
    at = task.timeMatcher.getNextMatch(at);
    times.push(at);
  }
  return times;
};

interface DstCase {
  label: string;
  expression: string;
  timezone: string;
  from: string;
  count: number;
}

const DST_CASES: DstCase[] = [
  {
    label: '02:30 daily, spring forward',
    expression: '30 2 * * *',
    timezone: 'Europe/Berlin',
    from: '2026-03-28T12:00:00Z',
    count: 2,
  },
  {
    label: '02:30 daily, fall back',
    expression: '30 2 * * *',
    timezone: 'Europe/Berlin',
    from: '2026-10-24T12:00:00Z',
    count: 2,
  },
  {
    label: 'every 30 min, fall-back hour',
    expression: '*/30 * * * *',
    timezone: 'Europe/Berlin',
    from: '2026-10-25T00:10:00Z',
    count: 4,
  },
  {
    label: '09:00 Mon–Fri across the change',
    expression: '0 9 * * 1-5',
    timezone: 'Europe/Berlin',
    from: '2026-03-27T12:00:00Z',
    count: 2,
  },
  {
    label: '02:30 daily, spring forward',
    expression: '30 2 * * *',
    timezone: 'America/New_York',
    from: '2026-03-07T12:00:00Z',
    count: 2,
  },
];

function local(date: Date, timezone: string): string {
  return date
    .toLocaleString('sv-SE', {
      timeZone: timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      timeZoneName: 'short',
    })
    .replace(' ', 'T');
}

function printDstTable(): void {
  const lines = DST_CASES.map((dstCase) => {
    const from = new Date(dstCase.from);
    const show = (times: Date[]) => times.map((time) => local(time, dstCase.timezone)).join(', ');
    const croner = show(withCroner(dstCase.expression, dstCase.timezone, from, dstCase.count));
    const nodeCron = show(withNodeCron(dstCase.expression, dstCase.timezone, from, dstCase.count));
    return [
      `${dstCase.label} (${dstCase.timezone})`,
      croner,
      nodeCron,
      croner === nodeCron ? 'same' : 'DIFFER',
    ];
  });
  printTable(['case', 'croner 11', 'node-cron 4.6', ''], lines, {
    leftColumns: 4,
    title: "Next fire times across DST changes (local time in the job's zone)",
  });
}

const EXPRESSIONS = [
  '0 9 * * 1-5',
  '*/15 * * * *',
  '30 2 * * *',
  '0 0 1 * *',
  '15 */6 * * 0,6',
  '*/10 * * * * *',
];
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Tokyo'];
const ROUNDS = 15;
const JOBS = 200;

/** Milliseconds to compute the next three fire times of JOBS jobs, per round. */
function timeRounds(next: NextTimes): number[] {
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS + 3; round += 1) {
    const from = new Date(Date.UTC(2026, 0, 1) + round * 3_600_000);
    const started = performance.now();
    for (let job = 0; job < JOBS; job += 1) {
      const expression = EXPRESSIONS[job % EXPRESSIONS.length] ?? '* * * * *';
      next(expression, ZONES[job % ZONES.length] ?? 'UTC', from, 3);
    }
    if (round >= 3) rounds.push(performance.now() - started);
  }
  return rounds;
}

function main(): void {
  console.log(`\nCron fire times: croner 11 and node-cron 4.6 (${describeMachine()})`);
  printDstTable();
  const croner = timeRounds(withCroner);
  const nodeCron = timeRounds(withNodeCron);
  printFigures(`Next three fire times of ${JOBS} jobs (${ROUNDS} rounds after 3 warm-up)`, [
    { label: 'croner 11', values: croner },
    { label: 'node-cron 4.6', values: nodeCron },
  ]);
}

main();
