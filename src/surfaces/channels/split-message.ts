import { SwitchboardError } from '../../base/errors/index.js';

/** A line that opens or closes a fenced code block. */
const FENCE = /^\s*(`{3,}|~{3,})/;
/** Room kept for a fence opener repeated at the top of the next part. */
const OPENER_ROOM = 32;

const isBlank = (line: string | undefined) => line !== undefined && line.trim() === '';

/**
 * Splits `text` into parts of at most `limit` characters for platforms that cap message length.
 * Cuts fall on paragraph boundaries (blank lines) when one leaves the part at least half full,
 * else on line boundaries, and never inside a code fence: a fence longer than a part is closed at
 * the end of one part and reopened (with its language) at the top of the next, so every part
 * renders on its own. Only a single line longer than a part is cut inside, at a space when it has
 * one (its cuts become line breaks). Parts are trimmed at their ends; an empty or blank text gives no parts.
 */
export function splitMessage(text: string, limit: number): string[] {
  if (!Number.isInteger(limit) || limit < OPENER_ROOM * 2) {
    throw new SwitchboardError(
      'CHANNEL_SPLIT_LIMIT',
      `splitMessage: limit must be an integer of at least ${OPENER_ROOM * 2}`,
    );
  }
  if (text.trim() === '') return [];
  if (text.length <= limit) return [text.trim()];
  const lines = text.split('\n').flatMap((line) => cutLongLine(line, limit - OPENER_ROOM));
  /** The opener of the fence still open after each line. */
  const openAfter: (string | undefined)[] = [];
  let open: string | undefined;
  for (const line of lines) {
    if (FENCE.test(line)) open = open === undefined ? line.trim() : undefined;
    openAfter.push(open);
  }
  const closerOf = (opener: string) => FENCE.exec(opener)?.[1] ?? '```';
  const join = (from: number, to: number) => lines.slice(from, to).join('\n');

  const parts: string[] = [];
  const push = (part: string) => {
    const trimmed = part.trim();
    if (trimmed !== '') parts.push(trimmed);
  };
  let start = 0;
  let prefix = '';
  while (start < lines.length) {
    if (prefix === '' && isBlank(lines[start])) {
      start++;
      continue;
    }
    let length = prefix.length;
    let end = start;
    while (end < lines.length) {
      const added = (lines[end]?.length ?? 0) + (end > start ? 1 : 0);
      const opener = openAfter[end];
      const closing = opener === undefined ? 0 : closerOf(opener).length + 1;
      if (length + added + closing > limit) break;
      length += added;
      end++;
    }
    if (end === lines.length) {
      push(prefix + join(start, end));
      break;
    }
    const cut = bestCut(start, end, prefix.length, lines, openAfter, limit);
    if (cut !== undefined) {
      push(prefix + join(start, cut));
      prefix = '';
      start = cut;
      continue;
    }
    // Inside one fence all the way: close it here and reopen it in the next part.
    const inFence = Math.max(end, start + 1);
    const opener = openAfter[inFence - 1] ?? '```';
    push(`${prefix}${join(start, inFence)}\n${closerOf(opener)}`);
    prefix = `${opener}\n`;
    start = inFence;
  }
  return parts;
}

/** The last safe cut in `(start, end]`: a paragraph boundary if it fills half a part, else a line boundary. */
function bestCut(
  start: number,
  end: number,
  prefixLength: number,
  lines: string[],
  openAfter: (string | undefined)[],
  limit: number,
): number | undefined {
  let lineCut: number | undefined;
  let size = prefixLength + lines.slice(start, end).join('\n').length;
  for (let cut = end; cut > start; cut--) {
    if (openAfter[cut - 1] === undefined) {
      lineCut ??= cut;
      const paragraph = isBlank(lines[cut]) || isBlank(lines[cut - 1]);
      if (paragraph && size >= limit / 2) return cut;
    }
    size -= (lines[cut - 1]?.length ?? 0) + 1;
  }
  return lineCut;
}

/** Cuts a line longer than `max` into pieces, at the last space before each cut when there is one. */
function cutLongLine(line: string, max: number): string[] {
  const pieces: string[] = [];
  let rest = line;
  while (rest.length > max) {
    const space = rest.lastIndexOf(' ', max);
    const at = space > max / 2 ? space : max;
    pieces.push(rest.slice(0, at));
    rest = rest.slice(at).replace(/^ /, '');
  }
  pieces.push(rest);
  return pieces;
}
