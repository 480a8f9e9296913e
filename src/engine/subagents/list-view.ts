import type { SubagentListEntry } from '../tools/index.js';
import { isActiveSubagentRun, type SubagentRun } from './registry.js';

/** What `list` and index targets look at: the caller's runs, the clock and the recent window. */
export interface ListWindow {
  /** Epoch milliseconds. */
  now: number;
  /** Ended runs count as recent when they ended at most this many minutes before `now`. */
  recentMinutes: number;
}

export interface SubagentList {
  /** `active.length + recent.length`: children outside the window are not counted. */
  total: number;
  active: SubagentListEntry[];
  recent: SubagentListEntry[];
  text: string;
}

/**
 * The latest run of each child session, most recently started first. A child has several runs
 * when it was steered after it ended; only its latest one says what the child is doing now.
 * Runs arrive oldest first, so on equal `startedAt` the later one in the input wins.
 */
export function latestRunPerChild(runs: readonly SubagentRun[]): SubagentRun[] {
  const sorted = [...runs].reverse().sort((left, right) => right.startedAt - left.startedAt);
  const seen = new Set<string>();
  return sorted.filter((run) => {
    if (seen.has(run.childSessionKey)) return false;
    seen.add(run.childSessionKey);
    return true;
  });
}

/**
 * The numbered runs: active ones (queued or running, most recently started first), then ended
 * ones whose `endedAt` lies within the window (most recently ended first). Index targets and
 * `list` both number this order, so `[2]` in a list is what target `2` names.
 */
export function listedRuns(
  runs: readonly SubagentRun[],
  window: ListWindow,
): { active: SubagentRun[]; recent: SubagentRun[] } {
  const latest = latestRunPerChild(runs);
  const cutoff = window.now - window.recentMinutes * 60_000;
  const active = latest.filter(isActiveSubagentRun);
  const recent = latest
    .filter((run) => !isActiveSubagentRun(run) && run.endedAt !== undefined && run.endedAt >= cutoff)
    .sort((left, right) => (right.endedAt ?? 0) - (left.endedAt ?? 0));
  return { active, recent };
}

/**
 * The `list` view. Its text has an `Active:` and a `Recent:` section, each left out when empty,
 * one `[index] label (status, runtime)` line per child; `No sub-agents.` when both are empty.
 */
export function buildSubagentList(runs: readonly SubagentRun[], window: ListWindow): SubagentList {
  const listed = listedRuns(runs, window);
  const active = listed.active.map((run, position) => toEntry(run, position + 1, window.now));
  const recent = listed.recent.map((run, position) => toEntry(run, active.length + position + 1, window.now));
  const lines: string[] = [];
  if (active.length > 0) lines.push('Active:', ...active.map(line));
  if (recent.length > 0) lines.push('Recent:', ...recent.map(line));
  return {
    total: active.length + recent.length,
    active,
    recent,
    text: lines.length > 0 ? lines.join('\n') : 'No sub-agents.',
  };
}

/** The name a run goes by in texts: its label, or its run id when it has none. */
export function displayName(run: Pick<SubagentRun, 'label' | 'subagentRunId'>): string {
  return run.label === '' ? run.subagentRunId : run.label;
}

/** A short duration: `12s`, `1m`, `1h 5m`, `2h` (rounded down to the unit shown). */
export function formatRuntime(milliseconds: number): string {
  const seconds = Math.max(0, Math.floor(milliseconds / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `${hours}h` : `${hours}h ${rest}m`;
}

function toEntry(run: SubagentRun, index: number, now: number): SubagentListEntry {
  return {
    index,
    runId: run.subagentRunId,
    label: run.label,
    status: run.status,
    startedAt: run.startedAt,
    runtimeMs: runtimeOf(run, now),
    childSessionKey: run.childSessionKey,
  };
}

function runtimeOf(run: SubagentRun, now: number): number {
  if (isActiveSubagentRun(run)) return Math.max(0, now - run.startedAt);
  return run.runtimeMs ?? Math.max(0, (run.endedAt ?? run.startedAt) - run.startedAt);
}

function line(entry: SubagentListEntry): string {
  return `[${entry.index}] ${displayName({ label: entry.label, subagentRunId: entry.runId })} (${entry.status}, ${formatRuntime(entry.runtimeMs)})`;
}
