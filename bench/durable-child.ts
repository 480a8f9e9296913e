import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../test/helpers/machine.js';
import { childEnvironment, MAIN_SCRIPT, pollUntil, writeConfig } from '../test/helpers/process.js';
import { driveClosed, timeReads, userNames } from './durable-drive.js';
import { httpSend } from './durable-gateway.js';
import { countItems, LAST, PAGE, type ReadFigures } from './durable-reads.js';
import type { Seeded } from './durable-seed.js';

/**
 * The built gateway (`node dist/main.js start`) as its own process on seeded state, on the
 * embedded defaults (SQLite, web chat, no model): start to healthy, RSS idle, RSS again after one
 * `/status` from each of the first `touch` sessions (their records are then in the cache), then
 * the HTTP reads (`GET /api/sessions?limit=100`, the long session's transcript).
 */

const TOKEN = 'bench-token-0123456789abcdef';
const IDLE_MS = 1000;

export interface ChildFigures {
  startMs: number;
  rssIdle: number;
  rssTouched: number;
  touched: number;
  list: ReadFigures;
  /** `?last=200` where the transcript route pages; the whole transcript otherwise (see `returned`). */
  last: ReadFigures;
  full: ReadFigures;
}

async function rssMegabytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kilobytes = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  return kilobytes / 1024;
}

async function getJson(url: string): Promise<unknown> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
  if (response.status !== 200) throw new Error(`GET ${url}: HTTP ${response.status}`);
  return response.json();
}

/** A read that fails is reported and left out (NaN), not the end of the bench. */
async function httpFigure(url: string): Promise<ReadFigures> {
  try {
    const timed = await timeReads(() => getJson(url), 5);
    return { median: timed.median, first: timed.first, returned: countItems(timed.result) };
  } catch (error) {
    console.log(`! ${error instanceof Error ? error.message : String(error)}`);
    return { median: Number.NaN, first: Number.NaN, returned: Number.NaN };
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(10_000).then(() => child.kill('SIGKILL'))]);
}

export async function runChild(dir: string, seeded: Seeded, touch: number): Promise<ChildFigures> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const configPath = await writeConfig(dir, {
    stateDir: seeded.stateDir,
    http: { port, token: TOKEN },
    log: { level: 'warn' },
  });
  const started = performance.now();
  const child = spawn(process.execPath, [MAIN_SCRIPT, 'start', '--config', configPath], {
    env: childEnvironment(),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    await pollUntil('the bench gateway to be healthy', async () => (await fetch(`${url}/healthz`)).ok, {
      timeoutMs: 120_000,
      intervalMs: 10,
    });
    const startMs = performance.now() - started;
    const pid = child.pid ?? 0;
    await sleep(IDLE_MS);
    const rssIdle = await rssMegabytes(pid);
    const send = httpSend(url, TOKEN, '/status');
    const touched = Math.min(touch, seeded.sessions);
    await driveClosed(send, { users: userNames('user', touched), messages: touched, concurrency: 16 });
    await sleep(IDLE_MS);
    const rssTouched = await rssMegabytes(pid);
    // The reads last: a whole list read grows the heap, and V8 keeps what it grew.
    const transcript = `${url}/api/sessions/${encodeURIComponent(seeded.longKey)}/transcript`;
    const list = await httpFigure(`${url}/api/sessions?limit=${PAGE}`);
    const last = await httpFigure(`${transcript}?last=${LAST}`);
    const full = await httpFigure(transcript);
    return { startMs, rssIdle, rssTouched, touched, list, last, full };
  } finally {
    await stopChild(child);
  }
}
