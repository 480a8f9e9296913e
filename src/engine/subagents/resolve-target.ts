import { fail, ok, type Result } from '../../base/errors/index.js';
import { type ListWindow, latestRunPerChild, listedRuns } from './list-view.js';
import type { SubagentRun } from './registry.js';

/** The run a target names, or the text saying why it names none. */
export type ResolvedTarget = Result<SubagentRun>;

/**
 * Finds the child a `kill` or `steer` target names among the caller's runs, looking only at each
 * child's latest run. Rungs, first match wins:
 * 1. `last`: the most recently started child (any status); `Unknown target: last` when there is none.
 * 2. digits: 1-based index over `list`'s numbering (active, then recent); else `Invalid index: X`.
 * 3. contains `:`: exact child session key; else `Unknown session: X`.
 * 4. exact label, case-insensitive; several → `Ambiguous label: X`.
 * 5. label prefix, case-insensitive; several → `Ambiguous label prefix: X`.
 * 6. run id prefix (case-sensitive, ids are generated); several → `Ambiguous runId prefix: X`.
 * 7. otherwise `Unknown target: X`.
 * Rungs 3–6 see every child, also those that ended before the recent window.
 */
export function resolveSubagentTarget(
  runs: readonly SubagentRun[],
  target: string,
  window: ListWindow,
): ResolvedTarget {
  const latest = latestRunPerChild(runs);

  if (target === 'last') {
    const newest = latest[0];
    return newest ? ok(newest) : fail(`Unknown target: ${target}`);
  }

  if (/^\d+$/.test(target)) {
    const { active, recent } = listedRuns(runs, window);
    const numbered = [...active, ...recent];
    const index = Number.parseInt(target, 10);
    const picked = index >= 1 ? numbered[index - 1] : undefined;
    return picked ? ok(picked) : fail(`Invalid index: ${target}`);
  }

  if (target.includes(':')) {
    const bySessionKey = latest.find((run) => run.childSessionKey === target);
    return bySessionKey ? ok(bySessionKey) : fail(`Unknown session: ${target}`);
  }

  const lowered = target.toLowerCase();
  return (
    single(
      latest.filter((run) => run.label.toLowerCase() === lowered),
      `Ambiguous label: ${target}`,
    ) ??
    single(
      latest.filter((run) => run.label.toLowerCase().startsWith(lowered)),
      `Ambiguous label prefix: ${target}`,
    ) ??
    single(
      latest.filter((run) => run.subagentRunId.startsWith(target)),
      `Ambiguous runId prefix: ${target}`,
    ) ??
    fail(`Unknown target: ${target}`)
  );
}

/** One match → it; several → the ambiguity error; none → undefined (the next rung decides). */
function single(matches: SubagentRun[], ambiguous: string): ResolvedTarget | undefined {
  const [first] = matches;
  if (!first) return undefined;
  return matches.length === 1 ? ok(first) : fail(ambiguous);
}
