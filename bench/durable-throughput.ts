import { type DriveResult, driveClosed, p, perSecond, type Send, userNames } from './durable-drive.js';
import { httpSend, type StoreKind, startBareFastify, startBenchGateway } from './durable-gateway.js';
import { startHubot } from './durable-hubot.js';

/**
 * Throughput cells of the durable bench: free text (the no-model reply: inbox, transcript,
 * session queue, turn; acknowledged = durable) handed in-process to Switchboard on memory and on
 * SQLite and to Hubot 14, then the same over HTTP beside a bare fastify app. A fresh gateway per
 * cell; each cell warms up on other users first.
 */

export const FREE_TEXT = 'hello, is anyone there?';

export interface ThroughputSizes {
  users: number;
  messages: number;
  concurrency: number;
  warmup: number;
}

export interface Cell {
  name: string;
  /** msg/s of the measured run. */
  rate: number;
  p50: number;
  p99: number;
  failures: number;
  firstFailure: string | undefined;
}

export const IN_PROCESS_CELLS = ['switchboard memory', 'switchboard sqlite', 'hubot'] as const;
export const HTTP_CELLS = ['http memory', 'http sqlite', 'bare fastify'] as const;
export type CellName = (typeof IN_PROCESS_CELLS)[number] | (typeof HTTP_CELLS)[number];

async function drive(name: string, send: Send, sizes: ThroughputSizes): Promise<Cell> {
  const warm = await driveClosed(send, {
    users: userNames('warmup', Math.min(100, sizes.users)),
    messages: sizes.warmup,
    concurrency: sizes.concurrency,
  });
  const result: DriveResult = await driveClosed(send, {
    users: userNames('user', sizes.users),
    messages: sizes.messages,
    concurrency: sizes.concurrency,
  });
  return {
    name,
    rate: perSecond(result),
    p50: p(result, 50),
    p99: p(result, 99),
    failures: warm.failures + result.failures,
    firstFailure: warm.firstFailure ?? result.firstFailure,
  };
}

/** Runs one cell on a fresh peer and closes it. */
export async function runCell(name: CellName, sizes: ThroughputSizes): Promise<Cell> {
  if (name === 'hubot') {
    const hubot = await startHubot(FREE_TEXT);
    try {
      return await drive(name, hubot.send, sizes);
    } finally {
      hubot.close();
    }
  }
  if (name === 'bare fastify') {
    const app = await startBareFastify();
    try {
      return await drive(name, httpSend(app.url, 'none', FREE_TEXT), sizes);
    } finally {
      await app.close();
    }
  }
  const store: StoreKind = name.endsWith('memory') ? 'memory' : 'sqlite';
  const bench = await startBenchGateway(store);
  try {
    const send = name.startsWith('http')
      ? httpSend(bench.gateway.url, bench.gateway.token, FREE_TEXT)
      : bench.inProcess(FREE_TEXT);
    return await drive(name, send, sizes);
  } finally {
    await bench.gateway.dispose();
  }
}
