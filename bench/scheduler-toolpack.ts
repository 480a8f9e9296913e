import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createLogger } from '../src/base/logging/index.js';
import {
  createControllerHost,
  createProjectStore,
  loadToolpackManifest,
  type SchedulerHook,
} from '../src/extensions/toolpacks/index.js';
import { createStore } from '../src/records/store/index.js';
import { makeTempDir, removeDir } from '../test/helpers/machine.js';
import { REPO_ROOT } from '../test/helpers/process.js';
import { describeMachine, fixed, printFigures } from './report.js';

/**
 * The packaged scheduler toolpack (`toolpacks/scheduler`), its controller driven as the gateway's
 * scheduler drives it: the cost of a tick with 10,000 active jobs (nothing due; and with one job
 * due but deferred by waitForQuiet, which makes every tick scan all jobs), one schedule.once call
 * on top of 10,000 jobs, and the time for 1,000 jobs due at once to be delivered through
 * `store.sendMessage` into a counting `deliver`. Figures only: nothing here asserts on speed.
 */

const ACTIVE = 10_000;
const DUE = 1_000;
const TICKS = 200;
const CALLS = 20;
const ROUNDS = 7;
const T0 = Date.parse('2030-01-07T08:00:00.000Z');
const HOUR = 3_600_000;

function job(index: number, nextAt: number, extra: Record<string, unknown> = {}) {
  return {
    id: `sch_${randomUUID()}`,
    type: index % 2 === 0 ? 'once' : 'recurring',
    status: 'active',
    createdAt: new Date(T0 - HOUR).toISOString(),
    nextAt: new Date(nextAt).toISOString(),
    sentCount: 0,
    sender: 'scheduler',
    priority: 'P3',
    waitForQuiet: false,
    body: `reminder number ${index}: check the deploy queue and post the status in #ops`,
    ...(index % 3 === 0 ? { channel: '#ops' } : { recipient: 'ops' }),
    schedule: index % 2 === 0 ? { afterMs: HOUR } : { mode: 'interval', everyMs: HOUR },
    ...extra,
  };
}

async function main(): Promise<void> {
  console.log('Switchboard scheduler toolpack bench: tick cost and delivery of due jobs.');
  console.log(describeMachine());
  const dir = await makeTempDir('switchboard-bench-scheduler-');
  const logger = createLogger({ level: 'silent', destination: { write: () => undefined } }).logger;
  const store = await createStore({ url: 'memory://', stateDir: dir, logger });
  try {
    const loaded = await loadToolpackManifest({
      directory: path.join(REPO_ROOT, 'toolpacks/scheduler'),
      configuredId: 'scheduler',
      configPath: path.join(REPO_ROOT, 'gateway.jsonc'),
    });
    if (!loaded.ok) throw new Error(`scheduler toolpack refused: ${JSON.stringify(loaded.error)}`);
    let delivered = 0;
    let lastDeliveredAt = 0;
    const host = createControllerHost({
      toolpack: loaded.value,
      store: createProjectStore({
        toolpackId: 'scheduler',
        stateDir: dir,
        routeNames: ['#ops'],
        coordinatorAgent: 'pm',
        listAgents: () => [
          { id: 'pm', displayName: 'pm', role: 'agent', status: 'idle' },
          { id: 'ops', displayName: 'ops', role: 'agent', status: 'idle' },
        ],
        projectStats: () => ({}),
        deliver: () => {
          delivered += 1;
          lastDeliveredAt = performance.now();
        },
        store,
        logger,
      }),
      logger,
      recordSignal: () => undefined,
    });
    const hook = (await host.schedulerHook()) as SchedulerHook;
    const file = path.join(dir, 'toolpack-state/scheduler/jobs.json');
    await mkdir(path.dirname(file), { recursive: true });
    const writeJobs = (jobs: unknown[]) => writeFile(file, JSON.stringify({ version: 1, jobs }, null, 2));
    const agents = [
      { id: 'pm', status: 'idle', modelAlive: false },
      { id: 'ops', status: 'running', modelAlive: true },
    ];
    const tick = async (now: number) => {
      const started = performance.now();
      await hook({ now, agents, hasPendingSignals: () => false, hasPendingSignalsForAgent: () => false });
      return performance.now() - started;
    };
    const timed = async (count: number, task: () => Promise<number>) => {
      const values: number[] = [];
      for (let index = 0; index < count; index++) values.push(await task());
      return values;
    };

    // [1] 10,000 active jobs, none due.
    const future = Array.from({ length: ACTIVE }, (_, index) => job(index, T0 + HOUR + index * 1_000));
    await writeJobs(future);
    const cold = await tick(T0);
    const idle = await timed(TICKS, () => tick(T0));

    // [2] The same jobs plus one due for a busy recipient with waitForQuiet: every tick scans them all.
    await writeJobs([...future, job(ACTIVE, T0 - 1, { recipient: 'ops', waitForQuiet: true })]);
    await tick(T0);
    const scanning = await timed(TICKS, () => tick(T0));
    if (delivered !== 0) throw new Error(`${delivered} messages sent while none was due`);

    // [3] schedule.once on top of 10,000 jobs (read-modify-write of the whole file).
    const calls = await timed(CALLS, async () => {
      const started = performance.now();
      await host.support({
        tool: 'schedule.once',
        input: { afterHours: 48, recipient: 'pm', body: 'one more' },
        agent: { id: 'pm' },
        activationId: 'act_bench',
      });
      return performance.now() - started;
    });

    // [4] 1,000 of 10,000 jobs due at once: the tick that sends them (and saves the file).
    const deliveries: number[] = [];
    const dueTicks: number[] = [];
    const reloads: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const jobs = Array.from({ length: ACTIVE }, (_, index) =>
        index < DUE ? job(index, T0 - index) : job(index, T0 + HOUR + index * 1_000),
      );
      await writeJobs(jobs);
      reloads.push(await tick(T0 - DUE)); // reads the new file; nothing is due yet
      delivered = 0;
      const started = performance.now();
      const ms = await tick(T0);
      if (delivered !== DUE) throw new Error(`expected ${DUE} deliveries, got ${delivered}`);
      if (round > 0) {
        // The first round is a warm-up.
        deliveries.push(lastDeliveredAt - started);
        dueTicks.push(ms);
      }
      delivered = 0;
      await tick(T0);
      if (delivered !== 0) throw new Error(`${delivered} jobs fired twice`);
    }

    printFigures(`Scheduler tick with ${ACTIVE.toLocaleString('en')} active jobs:`, [
      { label: 'first tick (reads and parses jobs.json)', values: [cold] },
      { label: 'tick, nothing due', values: idle },
      { label: 'tick, one due job deferred (full scan)', values: scanning },
      { label: `tick after an outside edit (re-read)`, values: reloads },
    ]);
    printFigures(`Tool call on ${ACTIVE.toLocaleString('en')} jobs:`, [
      { label: 'schedule.once (validate, rewrite jobs.json)', values: calls },
    ]);
    printFigures(
      `${DUE.toLocaleString('en')} of ${ACTIVE.toLocaleString('en')} jobs due at once (one tick: send all, save):`,
      [
        { label: `tick start to the ${DUE.toLocaleString('en')}th delivery`, values: deliveries },
        { label: 'whole tick (with the jobs.json write)', values: dueTicks },
      ],
    );
    const median = (values: number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    console.log(
      `\nTick with nothing due, median: ${fixed(median(idle) * 1000, 0)} µs; with a full scan: ` +
        `${fixed(median(scanning) * 1000, 0)} µs.`,
    );
    console.log(
      `Per delivered job: ${fixed((median(dueTicks) * 1000) / DUE, 1)} µs ` +
        `(sendMessage, bookkeeping and a share of the file write).`,
    );
  } finally {
    await store.close();
    await removeDir(dir);
  }
}

await main();
