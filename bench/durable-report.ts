import type { AgentFigures } from './durable-agent.js';
import type { ChildFigures } from './durable-child.js';
import { type DriveResult, median, perSecond } from './durable-drive.js';
import type { InProcessReads, ReadFigures } from './durable-reads.js';
import { type Cell, HTTP_CELLS, IN_PROCESS_CELLS } from './durable-throughput.js';
import { percentile } from './load.js';
import { printTable } from './report.js';

/** The figures of the durable bench, per round, and its tables: medians over the rounds. */

export function createSamples() {
  const values = new Map<string, number[]>();
  const failures = new Map<string, { count: number; first?: string }>();
  const add = (name: string, value: number) => {
    const list = values.get(name) ?? [];
    list.push(value);
    values.set(name, list);
  };
  const fail = (name: string, count: number, first?: string) => {
    const known = failures.get(name) ?? { count: 0 };
    known.count += count;
    known.first ??= first;
    failures.set(name, known);
  };
  const read = (prefix: string, figures: ReadFigures) => {
    add(`${prefix}:median`, figures.median);
    add(`${prefix}:first`, figures.first);
    add(`${prefix}:returned`, figures.returned);
  };
  return {
    values,
    failures,
    cell(cell: Cell) {
      add(`rate:${cell.name}`, cell.rate);
      add(`p50:${cell.name}`, cell.p50);
      add(`p99:${cell.name}`, cell.p99);
      fail(cell.name, cell.failures, cell.firstFailure);
    },
    command(name: string, result: DriveResult) {
      add(`command:${name}:p50`, percentile(result.latencies, 50));
      add(`command:${name}:p99`, percentile(result.latencies, 99));
      add(`command:${name}:rate`, perSecond(result));
      fail(`command ${name}`, result.failures, result.firstFailure);
    },
    agent(store: string, figures: AgentFigures) {
      add(`agent:${store}:p50`, figures.p50);
      add(`agent:${store}:p99`, figures.p99);
      fail(`agent ${store}`, figures.failures, figures.firstFailure);
    },
    reads(count: number, figures: InProcessReads) {
      for (const [name, figure] of Object.entries(figures)) read(`reads:${count}:${name}`, figure);
    },
    child(count: number, figures: ChildFigures) {
      add(`child:${count}:start`, figures.startMs);
      add(`child:${count}:rssIdle`, figures.rssIdle);
      add(`child:${count}:rssTouched`, figures.rssTouched);
      add(`child:${count}:touched`, figures.touched);
      for (const name of ['list', 'last', 'full'] as const) read(`child:${count}:${name}`, figures[name]);
    },
    /** The median of the per-round ratios of two cells' msg/s (each round ran both: load drifts less within one). */
    ratioOf(numerator: string, denominator: string) {
      const tops = values.get(`rate:${numerator}`) ?? [];
      const bottoms = values.get(`rate:${denominator}`) ?? [];
      const value = median(tops.map((top, round) => top / (bottoms[round] ?? Number.NaN)));
      return Number.isFinite(value) ? `${value.toFixed(2)}×` : 'n/a';
    },
    /** The median over the rounds (NaN when never measured). */
    median: (name: string) => median(values.get(name) ?? []),
    spread(name: string, digits = 0) {
      const list = values.get(name) ?? [];
      if (list.length === 0) return 'n/a';
      return `${Math.min(...list).toFixed(digits)}–${Math.max(...list).toFixed(digits)}`;
    },
  };
}

export type Samples = ReturnType<typeof createSamples>;

export const num = (value: number, digits = 0) =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : 'n/a';

export function printThroughput(samples: Samples): void {
  const lines = [...IN_PROCESS_CELLS, ...HTTP_CELLS].map((name) => [
    name,
    IN_PROCESS_CELLS.includes(name as never) ? 'in-process' : 'HTTP',
    num(samples.median(`rate:${name}`)),
    samples.spread(`rate:${name}`),
    num(samples.median(`p50:${name}`), 2),
    num(samples.median(`p99:${name}`), 2),
    String(samples.failures.get(name)?.count ?? 0),
  ]);
  printTable(['cell', 'via', 'msg/s', 'min–max', 'p50 ms', 'p99 ms', 'failures'], lines, {
    leftColumns: 2,
    title: 'Free-text throughput (acknowledged = durable for Switchboard; Hubot keeps nothing):',
  });
  console.log(
    `Ratios (msg/s, median of the per-round ratios): sqlite/hubot ${samples.ratioOf('switchboard sqlite', 'hubot')}; ` +
      `memory/hubot ${samples.ratioOf('switchboard memory', 'hubot')}; ` +
      `sqlite/memory ${samples.ratioOf('switchboard sqlite', 'switchboard memory')}; ` +
      `http sqlite/fastify ${samples.ratioOf('http sqlite', 'bare fastify')}; ` +
      `http memory/fastify ${samples.ratioOf('http memory', 'bare fastify')}.`,
  );
}

export function printCommandAndAgent(samples: Samples, sizes: { perSecond: number; messages: number }): void {
  const rows = ['coldInProcess', 'coldHttp', 'warmInProcess', 'warmHttp'].map((name) => [
    name.startsWith('cold') ? 'cold (after a restart)' : 'warm',
    name.endsWith('Http') ? 'HTTP' : 'in-process',
    num(samples.median(`command:${name}:rate`)),
    num(samples.median(`command:${name}:p50`), 2),
    num(samples.median(`command:${name}:p99`), 2),
    samples.spread(`command:${name}:p99`, 2),
    String(samples.failures.get(`command ${name}`)?.count ?? 0),
  ]);
  printTable(['/status', 'via', 'achieved msg/s', 'p50 ms', 'p99 ms', 'p99 min–max', 'failures'], rows, {
    leftColumns: 2,
    title:
      `Command path (SQLite): ${sizes.messages / 2} + ${sizes.messages / 2} messages at ${sizes.perSecond} msg/s, ` +
      'one per session, in-process then HTTP, at most 64 in flight:',
  });
  const agent = ['sqlite', 'memory'].map((store) => [
    store,
    num(samples.median(`agent:${store}:p50`), 2),
    num(samples.median(`agent:${store}:p99`), 2),
    samples.spread(`agent:${store}:p99`, 2),
    String(samples.failures.get(`agent ${store}`)?.count ?? 0),
  ]);
  printTable(['store', 'overhead p50 ms', 'p99 ms', 'p99 min–max', 'failures'], agent, {
    title: 'Agent overhead, instant model, 2 tool rounds, one turn at a time over HTTP:',
  });
}
