import { open, stat } from 'node:fs/promises';

/** Bytes read per step when looking backwards for line ends. */
const CHUNK_BYTES = 64 * 1024;
/** How often `followLog` looks at the file: a person reads along, a quarter second is prompt enough. */
const FOLLOW_INTERVAL_MS = 250;

/**
 * The last `count` complete lines of a file and the offset after them (where following goes on),
 * read backwards in chunks: an unrotated pm2 log can be gigabytes.
 */
export async function readLastLines(file: string, count: number): Promise<{ lines: string[]; end: number }> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    let start = size;
    let bytes = Buffer.alloc(0);
    // count + 1 line ends: the one before the first line wanted bounds it. Decoded once at the
    // end: a chunk may split a character.
    while (start > 0 && countNewlines(bytes) <= count) {
      const length = Math.min(CHUNK_BYTES, start);
      start -= length;
      const chunk = Buffer.alloc(length);
      await handle.read(chunk, 0, length, start);
      bytes = Buffer.concat([chunk, bytes]);
    }
    const complete = bytes.subarray(0, bytes.lastIndexOf(0x0a) + 1);
    const lines = complete.toString('utf8').split('\n').slice(0, -1);
    return { lines: count === 0 ? [] : lines.slice(-count), end: start + complete.length };
  } finally {
    await handle.close();
  }
}

/**
 * The last `count` lines across rotated files (oldest first; the last is being written): a file
 * just rotated has few lines, so the older ones fill up. A file rotated away meanwhile is skipped.
 * `end` is the offset after the lines read from the newest file.
 */
export async function readLastLinesOf(
  files: readonly string[],
  count: number,
): Promise<{ lines: string[]; end: number }> {
  let lines: string[] = [];
  let end = 0;
  // The newest file always, for `end` (with `-n 0` too).
  for (
    let index = files.length - 1;
    index >= 0 && (lines.length < count || index === files.length - 1);
    index -= 1
  ) {
    const read = await readLastLines(files[index] as string, count - lines.length).catch(() => undefined);
    if (!read) continue;
    if (index === files.length - 1) end = read.end;
    lines = [...read.lines, ...lines];
  }
  return { lines, end };
}

export interface FollowLogOptions {
  /** The files, oldest first, listed again at each look: a rotation adds one, `keep` removes old ones. */
  files: () => string[];
  /** Where to go on (the end of what was printed already); older files are not read. */
  from: { file: string; offset: number } | undefined;
  onLine: (line: string) => void;
  signal: AbortSignal;
}

/**
 * Prints lines as they are appended until `signal` aborts. After a rotation the rest of the old
 * file is read first, then each newer file from its start (several rotations between two looks
 * lose nothing unless `keep` deleted a file meanwhile); a file that shrank (pm2 flush,
 * copy-truncate) is read again from its start.
 */
export async function followLog(options: FollowLogOptions): Promise<void> {
  let position = options.from;
  // Files there at the start are before `from` (or are it): only newer ones are read whole.
  const seen = new Set(options.files());
  while (!options.signal.aborted) {
    for (const file of options.files()) {
      if (file !== position?.file) {
        if (seen.has(file)) continue;
        seen.add(file);
        position = { file, offset: 0 };
      }
      await readNewLines(position, options.onLine);
    }
    await new Promise((resolve) => setTimeout(resolve, FOLLOW_INTERVAL_MS));
  }
}

/** Reads the complete lines after `position.offset` and moves it past them. */
async function readNewLines(position: { file: string; offset: number }, onLine: (line: string) => void) {
  const size = await stat(position.file).then(
    (stats) => stats.size,
    () => undefined,
  );
  if (size === undefined) return;
  if (size < position.offset) position.offset = 0;
  if (size === position.offset) return;
  const handle = await open(position.file, 'r');
  try {
    const buffer = Buffer.alloc(size - position.offset);
    await handle.read(buffer, 0, buffer.length, position.offset);
    const complete = buffer.subarray(0, buffer.lastIndexOf(0x0a) + 1);
    for (const line of complete.toString('utf8').split('\n').slice(0, -1)) onLine(line);
    position.offset += complete.length;
  } finally {
    await handle.close();
  }
}

function countNewlines(bytes: Buffer): number {
  let count = 0;
  for (let index = bytes.indexOf(0x0a); index !== -1; index = bytes.indexOf(0x0a, index + 1)) count += 1;
  return count;
}
