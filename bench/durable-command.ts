import { type DriveResult, drivePaced, p, perSecond, userNames } from './durable-drive.js';
import { httpSend, startBenchGateway } from './durable-gateway.js';
import type { Seeded } from './durable-seed.js';

/**
 * The command path of the durable bench: `/status` (answered at once, nothing written) at a fixed
 * rate over the seeded sessions of a SQLite state, right after an in-process restart on that
 * state (cold: no record cached) and then again over the same sessions (warm). Half the messages
 * go in-process (`webchat.receive`), then the other half over HTTP, each to its own sessions.
 */

export interface CommandFigures {
  coldInProcess: DriveResult;
  coldHttp: DriveResult;
  warmInProcess: DriveResult;
  warmHttp: DriveResult;
}

export async function runCommandCell(
  dir: string,
  seeded: Seeded,
  options: { perSecond: number; messages: number },
): Promise<CommandFigures> {
  const bench = await startBenchGateway('sqlite', { dir });
  try {
    await bench.gateway.restart();
    const half = Math.min(options.messages, seeded.sessions) / 2;
    const first = userNames('user', half);
    const second = userNames('user', half, half);
    const inProcess = bench.inProcess('/status');
    // One client for both HTTP passes: the warm pass reuses the cold pass's sockets.
    const http = httpSend(bench.gateway.url, bench.gateway.token, '/status');
    const paced = (send: typeof inProcess, users: string[]) =>
      drivePaced(send, { users, messages: users.length, perSecond: options.perSecond });
    const coldInProcess = await paced(inProcess, first);
    const coldHttp = await paced(http, second);
    const warmInProcess = await paced(inProcess, first);
    const warmHttp = await paced(http, second);
    return { coldInProcess, coldHttp, warmInProcess, warmHttp };
  } finally {
    // The state is the bench's seeded dir: stop only (the caller removes it).
    await bench.gateway.stop();
  }
}

export const p50p99 = (result: DriveResult) => ({
  p50: p(result, 50),
  p99: p(result, 99),
  rate: perSecond(result),
});
