import path from 'node:path';
import { type LoadedToolpack, loadToolpacks, reservedToolNames } from '../src/extensions/toolpacks/index.js';
import { startTestGateway } from '../test/helpers/gateway.js';
import { makeTempDir, removeDir } from '../test/helpers/machine.js';
import { percentile } from './load.js';
import { describeLoad, describeMachine, figures, fixed, printFigures, printTable, ratio } from './report.js';
import { measureRunnerHost, measureRuntime, type RoundTrips } from './toolpack-calls.js';
import { type GeneratedToolpack, writeToolpacks } from './toolpack-fixtures.js';

/**
 * Toolpacks: loading (validating) 50 generated toolpacks and a gateway start with them, and a
 * runner tool call's round trip with and without one `callSupport`, on a runner host alone and
 * through the gateway's toolpack runtime. Figures only: nothing here asserts on speed.
 */

const TOOLPACKS = 50;
const LOADS = 20;
const STARTS = 5;
const CALLS = 500;
const WARMUP = 50;

async function measureLoads(entries: GeneratedToolpack[], configPath: string) {
  const load = async () => {
    const started = performance.now();
    const result = await loadToolpacks({ entries, configPath, builtinToolNames: reservedToolNames() });
    const ms = performance.now() - started;
    if (result.toolpacks.length !== entries.length) {
      throw new Error(`only ${result.toolpacks.length} toolpacks loaded: ${JSON.stringify(result.problems)}`);
    }
    return { ms, toolpacks: result.toolpacks };
  };
  // First in the process: ajv's meta-schema and every module on this path are compiled here.
  const cold = await load();
  const warm: number[] = [];
  for (let index = 0; index < LOADS; index++) warm.push((await load()).ms);
  return { cold: cold.ms, warm, toolpacks: cold.toolpacks };
}

/** Gateway starts with no toolpack and with all of them, alternating; each gateway is disposed untimed. */
async function measureStarts(entries: GeneratedToolpack[]) {
  const none: number[] = [];
  const all: number[] = [];
  for (let index = 0; index < (STARTS + 1) * 2; index++) {
    const registered = index % 2 === 1 ? entries : [];
    const started = performance.now();
    const gateway = await startTestGateway({
      config: { log: { level: 'warn' }, tools: { toolpacks: registered } },
    });
    const ms = performance.now() - started;
    const skipped = gateway.logLines.filter((line) => line.includes('toolpack skipped'));
    await gateway.dispose();
    if (skipped.length > 0) throw new Error(`toolpacks skipped at start: ${skipped[0]}`);
    // The first start of each kind is a warm-up (the very first pays the gateway's lazy imports).
    if (index >= 2) (registered.length > 0 ? all : none).push(ms);
  }
  return { none, all };
}

const p = (values: readonly number[], rank: number) => percentile(Float64Array.from(values), rank);

function printRoundTrips(host: RoundTrips, runtime: RoundTrips) {
  const rows = [
    { label: 'runner host: trivial handler', values: host.trivial },
    { label: 'runner host: handler + callSupport', values: host.support },
    { label: 'gateway runtime: trivial handler', values: runtime.trivial },
    { label: 'gateway runtime: handler + callSupport', values: runtime.support },
  ];
  printTable(
    ['', 'n', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'],
    rows.map(({ label, values }) => [
      label,
      String(values.length),
      fixed(figures(values).median, 3),
      fixed(p(values, 90), 3),
      fixed(p(values, 99), 3),
      fixed(figures(values).max, 3),
    ]),
    {
      title: `Runner round trip, one call at a time (${CALLS} of each after ${WARMUP} warm-up, alternating):`,
    },
  );
  const cost = (label: string, trips: RoundTrips) => {
    const [b50, s50, b99, s99] = [
      figures(trips.trivial).median,
      figures(trips.support).median,
      p(trips.trivial, 99),
      p(trips.support, 99),
    ];
    return [label, fixed(s50 - b50, 3), ratio(s50, b50), fixed(s99 - b99, 3), ratio(s99, b99)];
  };
  printTable(
    ['callSupport cost', 'Δ p50 ms', 'p50 ratio', 'Δ p99 ms', 'p99 ratio'],
    [
      cost('runner host (callSupport answered at once)', host),
      cost('gateway runtime (checks + controller)', runtime),
    ],
    { title: 'One callSupport, as the difference and ratio to the trivial handler:' },
  );
  console.log(
    `First call (starts the runner process and imports all ${TOOLPACKS} runner modules): ` +
      `runner host ${fixed(host.firstMs)} ms, gateway runtime ${fixed(runtime.firstMs)} ms.`,
  );
}

async function main(): Promise<void> {
  const began = performance.now();
  console.log(
    `Switchboard toolpack bench: loading ${TOOLPACKS} toolpacks, and runner tool call round trips.`,
  );
  console.log(`${describeMachine()}; generated toolpacks of 3 tools and 1 WebUI panel each.`);
  const dir = await makeTempDir('switchboard-bench-toolpacks-');
  try {
    const entries = await writeToolpacks(path.join(dir, 'toolpacks'), TOOLPACKS);
    console.log(`\n[1/4] loadToolpacks: 1 cold load, then ${LOADS}…`);
    const loads = await measureLoads(entries, path.join(dir, 'gateway.jsonc'));
    console.log(
      `[2/4] gateway starts: ${STARTS} with none and ${STARTS} with ${TOOLPACKS} (after one of each)…`,
    );
    const starts = await measureStarts(entries);
    const toolpacks: LoadedToolpack[] = loads.toolpacks;
    const counts = { calls: CALLS, warmup: WARMUP };
    console.log('[3/4] round trips on a runner host…');
    const host = await measureRunnerHost(toolpacks, dir, counts);
    console.log('[4/4] round trips through the gateway toolpack runtime…');
    const runtime = await measureRuntime(toolpacks, entries, dir, counts);

    const warm = figures(loads.warm).median;
    printFigures(
      `loadToolpacks with ${TOOLPACKS} toolpacks (${TOOLPACKS * 3} tools; manifests, realpaths, ajv compiles; files in the page cache):`,
      [
        { label: 'cold (first load in the process)', values: [loads.cold] },
        { label: 'warm', values: loads.warm },
      ],
    );
    console.log(`Warm load per toolpack: ${fixed(warm / TOOLPACKS, 2)} ms.`);
    printFigures('Gateway start (startTestGateway: temp dir, config file, start; listening):', [
      { label: 'no toolpacks', values: starts.none },
      { label: `${TOOLPACKS} toolpacks`, values: starts.all },
    ]);
    const [none, all] = [figures(starts.none).median, figures(starts.all).median];
    console.log(
      `${TOOLPACKS} toolpacks add ${fixed(all - none)} ms to a start (${ratio(all, none)} of one without).`,
    );
    printRoundTrips(host, runtime);
    const cost = figures(runtime.support).median - figures(runtime.trivial).median;
    console.log(
      `\nSummary (medians): load ${TOOLPACKS} toolpacks ${fixed(warm)} ms warm, ${fixed(loads.cold)} ms cold; ` +
        `start +${fixed(all - none)} ms; gateway round trip ${fixed(figures(runtime.trivial).median, 3)} ms, ` +
        `+${fixed(cost, 3)} ms with callSupport. Load average at the end: ${describeLoad()}; ` +
        `ran ${fixed((performance.now() - began) / 1000)} s.`,
    );
  } finally {
    await removeDir(dir);
  }
}

await main();
