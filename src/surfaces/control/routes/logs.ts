import type { FastifyInstance } from 'fastify';
import { formatLogLine, type RecentLogLine } from '../../../base/logging/index.js';
import { type AccessPolicy, requireOwner } from '../../http/index.js';
import { LogLevelName, type LogLineView, type LogPage } from '../contracts.js';

/** What the route needs of the process logger: its newest lines, scrubbed (`LoggerHandle.recent`). */
export interface LogsPort {
  recent(after?: number): RecentLogLine[];
}

/** The contract's levels, least severe first. */
const LEVELS: readonly LogLevelName[] = LogLevelName.anyOf.map((level) => level.const);
/** pino's numbers: 10 trace … 60 fatal. */
const levelOf = (value: unknown): LogLevelName =>
  LEVELS[Math.min(5, Math.max(0, Math.floor(Number(value) / 10) - 1))] ?? 'info';
/** The most lines one answer carries (the newest of the matching ones). */
const PAGE_LIMIT = 500;

/** A kept line as the page shows it; a line that is not pino JSON is shown whole, as info. */
export function logLineView({ seq, line }: RecentLogLine): LogLineView {
  let record: { time?: unknown; level?: unknown; component?: unknown } = {};
  try {
    record = JSON.parse(line) as typeof record;
  } catch {
    // not JSON: shown as it is
  }
  return {
    seq,
    time: typeof record.time === 'number' ? new Date(record.time).toISOString() : '',
    level: record.level === undefined ? 'info' : levelOf(record.level),
    ...(typeof record.component === 'string' ? { component: record.component } : {}),
    text: formatLogLine(line),
  };
}

/**
 * `GET /api/logs?after=<seq>&level=<least level>&q=<text>`, owner-only: the gateway's newest log
 * lines (scrubbed of secrets as the log file is) newer than `after`, at `level` or above, whose
 * text holds `q` (case-insensitive). The Logs page polls it with the last `next` for a live tail.
 */
export function registerLogsRoute(
  app: FastifyInstance,
  options: { logs: LogsPort; access: AccessPolicy },
): void {
  app.get<{ Querystring: { after?: string; level?: LogLevelName; q?: string } }>(
    '/api/logs',
    {
      schema: {
        querystring: {
          type: 'object',
          properties: {
            after: { type: 'string', pattern: '^[0-9]{1,15}$' },
            level: { type: 'string', enum: [...LEVELS] },
            q: { type: 'string', maxLength: 200 },
          },
          additionalProperties: false,
        },
      },
    },
    async (request, reply): Promise<LogPage | typeof reply> => {
      if (!requireOwner(request, reply, options.access)) return reply;
      const { level = 'trace', q } = request.query;
      const after = Number(request.query.after ?? 0);
      const kept = options.logs.recent(after);
      const least = LEVELS.indexOf(level);
      const needle = q?.trim().toLowerCase();
      const lines = kept
        .map(logLineView)
        .filter((view) => LEVELS.indexOf(view.level) >= least)
        .filter((view) => !needle || view.text.toLowerCase().includes(needle));
      return {
        lines: lines.slice(-PAGE_LIMIT),
        next: kept.at(-1)?.seq ?? after,
        kept: options.logs.recent().length,
      };
    },
  );
}
