import { LAST, PAGE } from './durable-reads.js';
import { num, printCommandAndAgent, printThroughput, type Samples } from './durable-report.js';
import { printTable } from './report.js';

/** The read and process tables of the durable bench, and the final table in the issue's rows. */

export interface DurableSettings {
  sizes: readonly number[];
  touch: number;
  command: { perSecond: number; messages: number; sessions: number };
  agent: { turns: number; warmup: number };
}

const short = (count: number) => (count >= 1000 ? `${count / 1000}k` : String(count));

/** `12.3 ms` and, when the call answered more than a page, how many it returned (what waits). */
function read(samples: Samples, prefix: string, page: number): string {
  const value = `${num(samples.median(`${prefix}:median`), 1)} ms`;
  const returned = samples.median(`${prefix}:returned`);
  return Number.isFinite(returned) && returned > page ? `${value} (all ${num(returned)})` : value;
}

function printReads(samples: Samples, sizes: readonly number[]): void {
  const lines = sizes.map((count) => [
    short(count),
    read(samples, `reads:${count}:list`, PAGE),
    read(samples, `child:${count}:list`, PAGE),
    read(samples, `reads:${count}:last`, LAST),
    read(samples, `child:${count}:last`, LAST),
    read(samples, `reads:${count}:full`, Number.POSITIVE_INFINITY),
    read(samples, `child:${count}:full`, Number.POSITIVE_INFINITY),
  ]);
  printTable(
    [
      'sessions = entries',
      `list(${PAGE})`,
      `GET ?limit=${PAGE}`,
      `transcript last ${LAST}`,
      `GET …/transcript?last=${LAST}`,
      'transcript full',
      'GET …/transcript',
    ],
    lines,
    {
      title:
        'Reads (SQLite; medians of up to 5 calls per round; "(all N)": the call returned every item, no page yet). ' +
        'In-process on a store opened fresh; GET on dist/main.js:',
    },
  );
}

function printProcess(samples: Samples, settings: DurableSettings): void {
  const counts = [...new Set([0, ...settings.sizes, settings.command.sessions])].sort((a, b) => a - b);
  const lines = counts.map((count) => [
    short(count),
    num(samples.median(`child:${count}:start`)),
    num(samples.median(`child:${count}:rssIdle`)),
    num(samples.median(`child:${count}:touched`)),
    num(samples.median(`child:${count}:rssTouched`)),
  ]);
  printTable(['sessions stored', 'start to healthy ms', 'RSS idle MB', 'touched', 'RSS after MB'], lines, {
    title: `node dist/main.js start on seeded SQLite state (embedded defaults); "touched": sessions that sent one /status:`,
  });
}

function finalRows(samples: Samples): string[][] {
  const m = (name: string, digits = 0) => num(samples.median(name), digits);
  const ms = (name: string) => `${m(name, 2)} ms`;
  return [
    [
      'free-text messages persisted, in-process, SQLite',
      `${m('rate:switchboard sqlite')} msg/s (memory ${m('rate:switchboard memory')}; Hubot 14 ${m('rate:hubot')}; ` +
        `SQLite/Hubot ${samples.ratioOf('switchboard sqlite', 'hubot')}, memory/Hubot ${samples.ratioOf('switchboard memory', 'hubot')})`,
      '≥ 10,000 msg/s',
    ],
    [
      'same over HTTP',
      `${m('rate:http sqlite')} msg/s = ${samples.ratioOf('http sqlite', 'bare fastify')} fastify's ` +
        `${m('rate:bare fastify')} (memory ${samples.ratioOf('http memory', 'bare fastify')})`,
      '≥ 0.7× fastify',
    ],
    [
      'command p99 at 1k msg/s over 10k sessions, cold (after a restart)',
      `${ms('command:coldInProcess:p99')} in-process, ${ms('command:coldHttp:p99')} HTTP`,
      '< 2 ms',
    ],
    [
      'the same, warm',
      `${ms('command:warmInProcess:p99')} in-process, ${ms('command:warmHttp:p99')} HTTP`,
      '—',
    ],
    [
      'agent overhead, instant model, 2 tool rounds, p99 (SQLite)',
      `${ms('agent:sqlite:p99')} (memory ${ms('agent:memory:p99')})`,
      '< 5 ms',
    ],
    [
      'sessions.list() / GET /api/sessions at 100k, page of 100',
      `${read(samples, 'reads:100000:list', PAGE)} / ${read(samples, 'child:100000:list', PAGE)}`,
      '< 50 ms',
    ],
    [
      'transcript, 10k entries: last 200 / full, in-process (GET)',
      `${read(samples, 'reads:10000:last', LAST)} / ${read(samples, 'reads:10000:full', Number.POSITIVE_INFINITY)} ` +
        `(${read(samples, 'child:10000:last', LAST)} / ${read(samples, 'child:10000:full', Number.POSITIVE_INFINITY)})`,
      '< 20 ms for the last 200',
    ],
    ['start to healthy, empty', `${m('child:0:start')} ms (bench/start.ts: the start figures)`, '< 1 s'],
    [
      'RSS, empty and idle / with 10k idle sessions',
      `${m('child:0:rssIdle')} MB / ${m('child:10000:rssTouched')} MB (100k stored, 10k touched: ${m('child:100000:rssTouched')} MB)`,
      '< 100 MB / < 150 MB',
    ],
  ];
}

export function printDurable(samples: Samples, settings: DurableSettings): void {
  printThroughput(samples);
  printCommandAndAgent(samples, settings.command);
  printReads(samples, settings.sizes);
  printProcess(samples, settings);
  for (const [name, known] of samples.failures)
    if (known.count > 0) console.log(`! ${name}: ${known.count} failures, first: ${known.first}`);
  // Markdown, to paste into the closing note as it is.
  console.log('\nIssue 15 table (figures, not verdicts; medians of the rounds):\n');
  console.log('| figure | value | target |\n| --- | --- | --- |');
  for (const row of finalRows(samples)) console.log(`| ${row.join(' | ')} |`);
}
