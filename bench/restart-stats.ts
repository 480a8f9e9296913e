/** Shared by the restart bench: log milestones and the clock they are compared with. */

/** A pino line as the bench needs it: the message and the process's own clock (ms since the epoch). */
export interface Milestone {
  msg: string;
  time: number;
}

export function parseMilestones(lines: readonly (string | { msg?: unknown; time?: unknown })[]): Milestone[] {
  const milestones: Milestone[] = [];
  for (const line of lines) {
    let parsed: { msg?: unknown; time?: unknown };
    try {
      parsed = typeof line === 'string' ? JSON.parse(line) : line;
    } catch {
      continue;
    }
    if (typeof parsed.msg === 'string' && typeof parsed.time === 'number')
      milestones.push({ msg: parsed.msg, time: parsed.time });
  }
  return milestones;
}

/** The time of the first line whose message starts with `prefix`, or NaN. */
export function timeOf(milestones: readonly Milestone[], prefix: string): number {
  return milestones.find((milestone) => milestone.msg.startsWith(prefix))?.time ?? Number.NaN;
}

/** `performance.now()` as ms since the epoch, comparable with pino's `time` (which has 1 ms resolution). */
export const epochNow = () => performance.timeOrigin + performance.now();

/** One table row per measurement: label, then median / p90 / min / max in ms. */
