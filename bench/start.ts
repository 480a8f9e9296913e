import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { defaultToolpackEntries } from '../src/base/config/index.js';
import { freePort, makeTempDir, portIsFree, removeDir } from '../test/helpers/machine.js';
import { childEnvironment, MAIN_SCRIPT, writeConfig } from '../test/helpers/process.js';
import { describeMachine, figures, fixed, printFigures, printTable, ratio } from './report.js';

/**
 * Start-up bench: `node dist/main.js start` on the built-in defaults (no config file, the default
 * SQLite store) in a fresh temp dir, from spawn() to the first 200 of `GET /healthz` (polled every
 * 5 ms), then the resident set size after IDLE_MS of idling (VmRSS from /proc, Linux). Interleaved
 * with a bare `node:http` server started the same way: the floor of a Node process on this machine.
 * Medians of RUNS rounds (`--runs N`). Not a test: nothing here asserts on speed.
 */

const RUNS = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 5;
const IDLE_MS = 3_000;
const TIMEOUT_MS = 20_000;
const DEFAULT_PORT = 8787;
const BARE_SERVER = `require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), '127.0.0.1')`;

interface Round {
  healthyMs: number;
  /** CPU time (user + system) the process had used when it was first healthy: less sensitive to load. */
  cpuMs: number;
  rssMb: number;
  peakMb: number;
}

/** utime + stime of a process (/proc/<pid>/stat fields 14 and 15, in clock ticks of 10 ms). */
async function cpuMsOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function memoryOf(pid: number): Promise<{ rssMb: number; peakMb: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kilobytes = (field: string) =>
    Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
  return { rssMb: kilobytes('VmRSS') / 1024, peakMb: kilobytes('VmHWM') / 1024 };
}

/** Spawns `args` in `cwd`, polls `/healthz` on `port` until 200, idles, reads the memory, stops it. */
async function measure(args: string[], cwd: string, port: number, env = childEnvironment()): Promise<Round> {
  const began = performance.now();
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  try {
    let healthyMs = Number.NaN;
    let cpuMs = Number.NaN;
    while (performance.now() - began < TIMEOUT_MS && child.exitCode === null) {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
      if (response?.status === 200) {
        healthyMs = performance.now() - began;
        cpuMs = await cpuMsOf(child.pid ?? -1);
        break;
      }
      await sleep(5);
    }
    if (!Number.isFinite(healthyMs)) throw new Error(`not healthy within ${TIMEOUT_MS} ms: ${stderr}`);
    await sleep(IDLE_MS);
    return { healthyMs, cpuMs, ...(await memoryOf(child.pid ?? -1)) };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/**
 * One gateway round in a fresh dir. When 8787 is taken (another gateway on this machine), a
 * config file that says what the built-in defaults say (the packaged toolpacks) on a free port.
 */
async function gatewayRound(main: string): Promise<Round & { configFile: boolean }> {
  const dir = await makeTempDir('switchboard-bench-start-');
  try {
    if (await portIsFree(DEFAULT_PORT)) {
      return { ...(await measure([main, 'start'], dir, DEFAULT_PORT)), configFile: false };
    }
    const port = await freePort();
    const file = `${dir}/gateway.jsonc`;
    await writeConfig(dir, { http: { port }, tools: { toolpacks: defaultToolpackEntries(file) } });
    return { ...(await measure([main, 'start', '--config', file], dir, port)), configFile: true };
  } finally {
    await removeDir(dir);
  }
}

async function bareRound(): Promise<Round> {
  const dir = await makeTempDir('switchboard-bench-bare-');
  try {
    const port = await freePort();
    return await measure(['-e', BARE_SERVER], dir, port, { ...childEnvironment(), PORT: String(port) });
  } finally {
    await removeDir(dir);
  }
}

/** `--main <file>` (repeatable): builds to compare, e.g. one of the previous commit; default dist/main.js. */
function mainScripts(): string[] {
  const scripts = process.argv.flatMap((arg, index) =>
    arg === '--main' ? [path.resolve(process.argv[index + 1] ?? '')] : [],
  );
  return scripts.length > 0 ? scripts : [MAIN_SCRIPT];
}

async function main(): Promise<void> {
  const scripts = mainScripts();
  console.log('Switchboard start bench: spawn → GET /healthz 200, then RSS after idling.');
  console.log(`${describeMachine()}; ${RUNS} rounds, interleaved; idle ${IDLE_MS} ms`);
  const runs = new Map<string, Round[]>([...scripts.map((script): [string, Round[]] => [script, []])]);
  const bare: Round[] = [];
  let configFiles = 0;
  for (let round = 1; round <= RUNS; round += 1) {
    for (const script of scripts) {
      const result = await gatewayRound(script);
      if (result.configFile) configFiles += 1;
      runs.get(script)?.push(result);
      console.log(
        `round ${round}: ${script}: ${fixed(result.healthyMs, 0)} ms (CPU ${fixed(result.cpuMs, 0)} ms), ` +
          `${fixed(result.rssMb)} MB`,
      );
    }
    bare.push(await bareRound());
  }
  if (configFiles > 0)
    console.log(`(${configFiles} gateway rounds: port ${DEFAULT_PORT} taken; the defaults on a free port)`);
  const rows = [
    ...[...runs].map(([script, rounds]) => ({ label: `node ${script} start`, rounds })),
    { label: 'bare node:http server (the floor)', rounds: bare },
  ];
  const pick = (choose: (round: Round) => number) =>
    rows.map(({ label, rounds }) => ({ label, values: rounds.map(choose) }));
  printFigures(
    '1. spawn → GET /healthz 200 (built-in defaults):',
    pick((round) => round.healthyMs),
  );
  printFigures(
    '   CPU time (user + system, 10 ms ticks) the process had used by then:',
    pick((round) => round.cpuMs),
  );
  const medianOf = (rounds: readonly Round[], choose: (round: Round) => number) =>
    figures(rounds.map(choose)).median;
  printTable(
    ['', 'RSS idle MB', 'peak RSS MB'],
    rows.map(({ label, rounds }) => [
      label,
      fixed(medianOf(rounds, (round) => round.rssMb)),
      fixed(medianOf(rounds, (round) => round.peakMb)),
    ]),
    { title: `2. memory after ${IDLE_MS} ms idle (medians):` },
  );
  const floor = medianOf(bare, (round) => round.healthyMs);
  for (const { label, rounds } of rows.slice(0, -1)) {
    console.log(
      `${label} / bare node, start to healthy: ${ratio(
        medianOf(rounds, (round) => round.healthyMs),
        floor,
      )}`,
    );
  }
}

await main();
