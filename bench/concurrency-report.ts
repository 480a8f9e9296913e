import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The concurrency bench's Markdown report (bench/reports/concurrency.md), from its figures. */

export interface ProbeFigures {
  name: string;
  count: number;
  p50: number;
  p95: number;
  p99: number;
}

export interface Level {
  /** Turns streaming at once. */
  level: number;
  /** The machine's load average (1 / 5 / 15 min) when the level's phase began. */
  load: string;
  probes: ProbeFigures[];
  probeFailures: number;
  firstProbeFailure: string | undefined;
  eventLoopP99Ms: number;
  /** The gateway's CPU over the phase, % of one core. */
  cpuPercent: number;
  rssMaxMb: number;
  turnsPerSecond: number;
  deltasPerSecond: number;
  turnFailures: number;
  firstTurnFailure: string | undefined;
}

export interface ConcurrencyReport {
  machine: string;
  settings: { phaseMs: number; tokens: number; tokensPerSecond: number; probeMs: number };
  levels: Level[];
}

/** The goal at 32 turns (issue 36): every probe's p99 and the event loop's p99 under this. */
const GOAL_MS = 50;

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : 'n/a');

function probeTable(levels: readonly Level[]): string[] {
  const names = levels[0]?.probes.map((probe) => probe.name) ?? [];
  const lines = ['| turns | probe | n | p50 ms | p95 ms | p99 ms |', '|---:|---|---:|---:|---:|---:|'];
  for (const level of levels) {
    for (const name of names) {
      const probe = level.probes.find((candidate) => candidate.name === name);
      if (!probe) continue;
      lines.push(
        `| ${level.level} | ${name} | ${probe.count} | ${ms(probe.p50)} | ${ms(probe.p95)} | ${ms(probe.p99)} |`,
      );
    }
  }
  return lines;
}

function processTable(levels: readonly Level[]): string[] {
  const lines = [
    '| turns | load average | event loop p99 ms | CPU % of a core | RSS max MB | turns ended/s | deltas streamed/s | failures |',
    '|---:|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const level of levels) {
    lines.push(
      `| ${level.level} | ${level.load} | ${ms(level.eventLoopP99Ms)} | ${level.cpuPercent.toFixed(0)} | ` +
        `${level.rssMaxMb.toFixed(0)} | ${level.turnsPerSecond.toFixed(1)} | ${level.deltasPerSecond.toFixed(0)} | ` +
        `${level.turnFailures + level.probeFailures} |`,
    );
  }
  return lines;
}

function goalLine(levels: readonly Level[]): string {
  const at32 = levels.find((level) => level.level === 32);
  if (!at32)
    return 'The goal (32 turns: every probe p99 and event-loop p99 under 50 ms) was not measured in this run.';
  const over = [
    ...at32.probes
      .filter((probe) => !(probe.p99 < GOAL_MS))
      .map((probe) => `${probe.name} ${ms(probe.p99)} ms`),
    ...(at32.eventLoopP99Ms < GOAL_MS ? [] : [`event loop ${ms(at32.eventLoopP99Ms)} ms`]),
  ];
  return over.length === 0
    ? `Goal met at 32 turns: every probe p99 and the event-loop p99 under ${GOAL_MS} ms.`
    : `Goal not met at 32 turns (p99 over ${GOAL_MS} ms): ${over.join(', ')}.`;
}

function failureLines(levels: readonly Level[]): string[] {
  return levels.flatMap((level) =>
    [level.firstTurnFailure, level.firstProbeFailure]
      .filter((failure) => failure !== undefined)
      .map((failure) => `- ${level.level} turns: ${failure}`),
  );
}

export async function writeConcurrencyReport(file: string, report: ConcurrencyReport): Promise<void> {
  const { settings } = report;
  const answerSeconds = settings.tokens / settings.tokensPerSecond;
  const failures = failureLines(report.levels);
  const text = [
    '# Concurrency: the control plane with many turns streaming',
    '',
    `Written by \`npm run bench\` (bench/concurrency.ts) on ${new Date().toISOString()}. ${report.machine}.`,
    '',
    'The built gateway in its own process (SQLite, the built-in toolpacks) with N web chat turns streaming at',
    `once from a fake OpenAI server (${settings.tokens} deltas at ${settings.tokensPerSecond} tokens/s, ${answerSeconds.toFixed(1)} s`,
    'per answer; each user sends its next message when its turn ends, and reads its event stream as a page',
    `does), while a prober in a third process sends one probe every ${settings.probeMs} ms, round-robin, for`,
    `${(settings.phaseMs / 1000).toFixed(0)} s per level. Event-loop delay: the gateway's monitorEventLoopDelay histogram`,
    "(prom-client's, via `/metrics`) over the phase. CPU: the gateway process's user + system time over the",
    'phase. The load average beside each level is the whole machine’s when its phase began: on a shared',
    'machine the figures include the other work.',
    '',
    goalLine(report.levels),
    '',
    '## Probes',
    '',
    ...probeTable(report.levels),
    '',
    '## The gateway process',
    '',
    ...processTable(report.levels),
    ...(failures.length > 0 ? ['', '## First failures', '', ...failures] : []),
    '',
  ].join('\n');
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}
