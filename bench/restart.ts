import { describeLoad, describeMachine, figures, fixed, printFigures } from './report.js';
import { LOG_MILESTONES, measurePatchRestarts, NOTE_PREFIX } from './restart-patch.js';
import { measureInProcessRestarts, measureSignalRestarts } from './restart-signal.js';

/**
 * Restart benchmarks: config.patch tool call → the note delivered after the restart, and the
 * in-process restart time (SIGUSR1 to ready) of the built gateway. Medians of 10 after one
 * warm-up. Not a test: nothing here asserts on speed.
 */

const COUNT = 10;
const WARMUP = 1;

const median = (values: readonly number[]) => figures(values).median;
const column = <T>(rows: readonly T[], pick: (row: T) => number) => rows.map(pick);

async function main(): Promise<void> {
  const began = performance.now();
  console.log('Switchboard restart bench: config.patch → restart note, and SIGUSR1 → ready.');
  console.log(
    `${describeMachine()}; ` +
      `${COUNT} measured rounds after ${WARMUP} warm-up per measurement; default SQLite store; log level info.`,
  );

  console.log('\n[1/3] config.patch → note (in-process gateway, fake OpenAI model)…');
  const patch = await measurePatchRestarts(COUNT, WARMUP);
  console.log('[2/3] SIGUSR1 → ready (node dist/main.js as a child process)…');
  const signal = await measureSignalRestarts(COUNT, WARMUP);
  console.log('[3/3] host.restart() in-process (tsx sources)…');
  const inProcess = await measureInProcessRestarts(COUNT, WARMUP);

  const stores = [...new Set(patch.map((row) => row.store ?? 'unknown'))].join(', ');
  const labels = new Map<string, string>(LOG_MILESTONES);
  const names = Object.keys(patch[0]?.milestones ?? {});
  const byMedian = names
    .map((name) => ({ name, values: column(patch, (row) => row.milestones[name] ?? Number.NaN) }))
    .sort((a, b) => median(a.values) - median(b.values));
  printFigures(
    `1. config.patch → "${NOTE_PREFIX}<note>" seen on the web chat event stream (store ${stores}). ` +
      `Offsets from t0 = the fake model answering with the config.patch call (restartDelayMs 0); ` +
      'the page reconnects once the bench sees the new gateway ready (1 ms poll); (log) = gateway pino time, 1 ms resolution:',
    byMedian.map(({ name, values }) => ({ label: labels.get(name) ?? name, values })),
  );
  const offset = (name: string) => column(patch, (row) => row.milestones[name] ?? Number.NaN);
  const minus = (a: number[], b: number[]) => a.map((value, index) => value - (b[index] ?? Number.NaN));
  const scheduled = offset('restart scheduled');
  const committed = offset('restart sentinel written');
  const ready = offset('Switchboard ready');
  const note = offset('note seen by the page');
  printFigures('   The same, as segments:', [
    { label: 't0 → restart scheduled (SDK parse, tool: validate, write, audit)', values: scheduled },
    {
      label: 'scheduled → committed (timer 0, config re-read, sentinel)',
      values: minus(committed, scheduled),
    },
    { label: 'committed → ready (drain the turn, stop, start)', values: minus(ready, committed) },
    { label: 'ready → note seen (bench notices, reconnects, held note)', values: minus(note, ready) },
    { label: 'total: t0 → note seen', values: note },
  ]);

  printFigures(
    '2. SIGUSR1 → ready, node dist/main.js (idle gateway, 100 ms between signals; wall = bench clock, kill() ' +
      'to the stdout chunk with the ready line; the rest from the process pino time, 1 ms resolution):',
    [
      { label: 'wall: kill() → ready line read', values: column(signal.iterations, (row) => row.wall) },
      {
        label: 'process: "SIGUSR1 received" → ready',
        values: column(signal.iterations, (row) => row.processReady),
      },
      {
        label: '  kill() → "SIGUSR1 received" (two clocks)',
        values: column(signal.iterations, (row) => row.signalDelivery),
      },
      {
        label: '  received → "restarting" (config re-read)',
        values: column(signal.iterations, (row) => row.reload),
      },
      {
        label: '  "restarting" → "gateway started" (stop + start)',
        values: column(signal.iterations, (row) => row.stopStart),
      },
    ],
  );
  console.log(`   child: ${signal.exit}.`);

  printFigures('3. host.restart() on an in-process gateway (for comparison; idle, 100 ms apart):', [
    { label: 'await host.restart()', values: column(inProcess, (row) => row.wall) },
    { label: '"restarting" → ready (log)', values: column(inProcess, (row) => row.stopStartReady) },
  ]);

  const total = median(note);
  const restartPart = median(minus(ready, committed));
  const signalWall = median(column(signal.iterations, (row) => row.wall));
  const signalProcess = median(column(signal.iterations, (row) => row.processReady));
  const inProcessWall = median(column(inProcess, (row) => row.wall));
  console.log(
    `\nSummary (medians): config.patch → note ${fixed(total)} ms, of which committed → ready ${fixed(restartPart)} ms ` +
      `(${fixed((restartPart / total) * 100, 0)} %) and ready → note ${fixed(median(minus(note, ready)))} ms; ` +
      `SIGUSR1 → ready ${fixed(signalProcess)} ms process clock / ${fixed(signalWall)} ms wall; ` +
      `host.restart() in-process ${fixed(inProcessWall)} ms (child/in-process ${fixed(signalWall / inProcessWall, 2)}×).`,
  );
  const failures = [
    ...patch.flatMap((row, index) =>
      row.failure ? [`config.patch round ${index + 1}: ${row.failure}`] : [],
    ),
    ...signal.failures.map((failure) => `SIGUSR1: ${failure}`),
  ];
  if (signal.iterations.length < COUNT)
    failures.push(`SIGUSR1: ${signal.iterations.length} of ${COUNT} rounds`);
  for (const failure of failures) console.log(`! ${failure}`);
  console.log(
    `Load average at the end: ${describeLoad()}; bench ran ${fixed((performance.now() - began) / 1000)} s.`,
  );
}

await main();
