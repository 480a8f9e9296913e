import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestGateway } from '../test/helpers/gateway.js';
import { freePort, makeTempDir, removeDir } from '../test/helpers/machine.js';
import { isReadyLine, PROCESS_TEST_TOKEN, spawnGateway, writeConfig } from '../test/helpers/process.js';
import { epochNow, parseMilestones, timeOf } from './restart-stats.js';

/**
 * Restart time of an idle gateway (no turn to drain): SIGUSR1 to the built `dist/main.js` as a
 * child process, and `host.restart()` on an in-process gateway for comparison. Both on the
 * default SQLite store. Figures in ms.
 */

const TIMEOUT_MS = 15_000;
/** A pause between restarts, so each one starts from an idle gateway. */
const PAUSE_MS = 100;

export interface SignalIteration {
  /** The bench's wall clock: kill() to the chunk of stdout carrying the ready line. */
  wall: number;
  /** The process's own clock (pino `time`): `SIGUSR1 received` to the ready line. */
  processReady: number;
  /** kill() to `SIGUSR1 received`, across the two clocks. */
  signalDelivery: number;
  /** `SIGUSR1 received` to `restarting` (config re-read). */
  reload: number;
  /** `restarting` to `gateway started` (stop the old gateway, build and listen the new one). */
  stopStart: number;
}

export interface SignalResult {
  iterations: SignalIteration[];
  failures: string[];
  exit: string;
}

export async function measureSignalRestarts(count: number, warmup: number): Promise<SignalResult> {
  const dir = await makeTempDir('switchboard-bench-restart-');
  const failures: string[] = [];
  const iterations: SignalIteration[] = [];
  try {
    const port = await freePort();
    const configPath = await writeConfig(dir, {
      stateDir: path.join(dir, 'state'),
      http: { port, token: PROCESS_TEST_TOKEN },
    });
    const gateway = spawnGateway(['start', '--config', configPath]);
    let exit = 'not stopped';
    try {
      await gateway.waitForReady(1);
      let waiter: { count: number; resolve(at: number): void } | undefined;
      // Registered after spawnGateway's own listener, so stdout() already holds this chunk.
      gateway.child.stdout?.on('data', () => {
        if (waiter && gateway.logLines().filter(isReadyLine).length >= waiter.count) {
          const { resolve } = waiter;
          waiter = undefined;
          resolve(epochNow());
        }
      });
      for (let index = 1; index <= warmup + count; index += 1) {
        await sleep(PAUSE_MS);
        const linesBefore = gateway.logLines().length;
        const ready = new Promise<number | undefined>((resolve) => {
          const timer = setTimeout(() => resolve(undefined), TIMEOUT_MS);
          waiter = {
            count: index + 1,
            resolve: (at) => {
              clearTimeout(timer);
              resolve(at);
            },
          };
        });
        const sentAt = epochNow();
        gateway.child.kill('SIGUSR1');
        const readyAt = await ready;
        if (readyAt === undefined) {
          failures.push(`restart ${index}: no ready line within 15 s`);
          break;
        }
        const lines = parseMilestones(gateway.logLines().slice(linesBefore));
        const received = timeOf(lines, 'SIGUSR1 received');
        const restarting = timeOf(lines, 'restarting');
        if (index > warmup)
          iterations.push({
            wall: readyAt - sentAt,
            processReady: timeOf(lines, 'Switchboard ready') - received,
            signalDelivery: received - sentAt,
            reload: restarting - received,
            stopStart: timeOf(lines, 'gateway started') - restarting,
          });
      }
    } finally {
      gateway.child.kill('SIGTERM');
      const status = await Promise.race([gateway.exited, sleep(TIMEOUT_MS, undefined, { ref: false })]);
      if (!status) {
        gateway.child.kill('SIGKILL');
        await gateway.exited;
        exit = 'did not exit within 15 s of SIGTERM; killed';
      } else {
        exit = `exited after SIGTERM with ${status.signal ?? `code ${status.code}`}`;
      }
      if (gateway.logLines().some((line) => line.msg?.startsWith('restart failed')))
        failures.push('a "restart failed" line was logged');
    }
    return { iterations, failures, exit };
  } finally {
    await removeDir(dir);
  }
}

export interface InProcessIteration {
  /** `await host.restart()` on the bench's clock. */
  wall: number;
  /** `restarting` to the ready line (pino `time`). */
  stopStartReady: number;
}

/** `host.restart()` on an in-process test gateway (the TypeScript sources through tsx). */
export async function measureInProcessRestarts(count: number, warmup: number): Promise<InProcessIteration[]> {
  const gateway = await startTestGateway();
  const iterations: InProcessIteration[] = [];
  try {
    for (let index = 1; index <= warmup + count; index += 1) {
      await sleep(PAUSE_MS);
      const linesBefore = gateway.logLines.length;
      const started = performance.now();
      await gateway.host.restart('bench');
      const wall = performance.now() - started;
      const lines = parseMilestones(gateway.logLines.slice(linesBefore));
      if (index > warmup)
        iterations.push({
          wall,
          stopStartReady: timeOf(lines, 'Switchboard ready') - timeOf(lines, 'restarting'),
        });
    }
    return iterations;
  } finally {
    await gateway.dispose();
  }
}
