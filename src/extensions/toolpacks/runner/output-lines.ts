import type { Readable } from 'node:stream';

/** Longer stdout/stderr lines are cut in the log. */
const MAX_LOG_LINE = 8_192;

/**
 * Splits a child's output stream into lines for the log, so that what a runner module prints lands
 * in the gateway's log as its own entries and never mixes into the gateway's stdout.
 */
export function forwardLines(stream: Readable | null, write: (line: string) => void): void {
  if (stream === null) return;
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = (lines.pop() ?? '').slice(0, MAX_LOG_LINE);
    for (const line of lines) if (line !== '') write(line.slice(0, MAX_LOG_LINE));
  });
  stream.on('end', () => {
    if (buffered !== '') write(buffered);
  });
}
