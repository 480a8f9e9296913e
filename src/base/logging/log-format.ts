/**
 * One pino JSON line as an operator reads it (`switchboard logs`):
 * `2026-05-04 09:12:03.120Z INFO  [router] turn ended agent=main status=ok`, and an error's stack
 * indented below. Ours rather than pino-pretty's, which is a development dependency: this runs in
 * production installs. Lines that are not pino JSON (pm2's error log) come back unchanged.
 */

const LEVELS: Readonly<Record<number, string>> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** Fields shown in the line's head, or never (pino's own). */
const HEAD_FIELDS = new Set(['time', 'level', 'msg', 'component', 'pid', 'hostname', 'v']);

/** A field's value is cut to this many characters: a line stays a line. */
const VALUE_LIMIT = 300;

export function formatLogLine(line: string): string {
  const record = parseRecord(line);
  if (!record) return line;
  const time = typeof record.time === 'number' ? formatTime(record.time) : '-';
  const level = (LEVELS[Number(record.level)] ?? String(record.level ?? '-')).padEnd(5);
  const component = typeof record.component === 'string' ? ` [${record.component}]` : '';
  const message = typeof record.msg === 'string' ? ` ${record.msg}` : '';
  const fields: string[] = [];
  let stack = '';
  for (const [key, value] of Object.entries(record)) {
    if (HEAD_FIELDS.has(key) || value === undefined) continue;
    if (key === 'err' && isError(value)) {
      fields.push(`err=${quote(`${value.type ?? 'Error'}: ${value.message}`)}`);
      stack = stackLines(value.stack);
      continue;
    }
    fields.push(`${key}=${quote(typeof value === 'string' ? value : JSON.stringify(value))}`);
  }
  const tail = fields.length > 0 ? ` ${fields.join(' ')}` : '';
  return `${time} ${level}${component}${message}${tail}${stack}`;
}

function parseRecord(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(line);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** UTC, so that lines from machines in different zones read alike. */
function formatTime(time: number): string {
  return new Date(time).toISOString().replace('T', ' ');
}

function isError(value: unknown): value is { type?: string; message: string; stack?: string } {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}

/** The stack without its first line (the message, shown already), indented under the line. */
function stackLines(stack: string | undefined): string {
  if (!stack) return '';
  const frames = stack.split('\n').slice(1);
  return frames.length > 0 ? `\n${frames.map((frame) => `    ${frame.trim()}`).join('\n')}` : '';
}

function quote(value: string): string {
  const cut = value.length > VALUE_LIMIT ? `${value.slice(0, VALUE_LIMIT)}…` : value;
  return /^[^\s"=]+$/.test(cut) ? cut : JSON.stringify(cut);
}
