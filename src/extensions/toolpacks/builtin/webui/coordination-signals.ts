import { Type } from '@sinclair/typebox';
import { StringEnum } from '../../../../base/config/index.js';
import { priorityRank } from '../../../../base/messages/index.js';
import { type CoreWebuiEntry, type Metric, metricLines, type SignalView } from './types.js';

const SIGNAL_STATUSES = ['pending', 'delivered', 'closed'] as const;

const SignalsInput = Type.Object(
  {
    targetAgent: Type.Optional(Type.String({ minLength: 1, description: 'Only signals for this agent.' })),
    status: Type.Optional(StringEnum(SIGNAL_STATUSES, { description: 'Only signals in this state.' })),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        default: 25,
        description: 'Most recent signals to show.',
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * `coordination.signals`: the signal queue. `pending` waits for a wake turn, `delivered` was taken
 * by a wake turn (kept after it ended, the newest 200), `closed` is a useful effect
 * recorded without a target. Payloads are summarized: a message's id and length, never its body.
 */
export const coordinationSignalsEntry: CoreWebuiEntry = {
  id: 'coordination.signals',
  title: 'Signal queue',
  description: 'Pending, delivered and closed scheduler signals, created by messages and coordination tools.',
  kind: 'panel',
  submitLabel: 'Refresh signals',
  inputSchema: SignalsInput,
  async run(sources, input) {
    const all = await sources.signals();
    const statusCounts: Record<string, number> = { pending: 0, delivered: 0, closed: 0 };
    const byStatusPriority = new Map<string, number>();
    for (const signal of all) {
      statusCounts[signal.status] = (statusCounts[signal.status] ?? 0) + 1;
      const key = `${signal.status} ${signal.priority}`;
      byStatusPriority.set(key, (byStatusPriority.get(key) ?? 0) + 1);
    }
    const aggregates = [...byStatusPriority]
      .map(([key, count]) => {
        const [status, priority] = key.split(' ');
        return { status, priority, count };
      })
      .sort(
        (a, b) =>
          `${a.status}`.localeCompare(`${b.status}`) ||
          priorityRank(`${a.priority}`) - priorityRank(`${b.priority}`),
      );
    const limit = typeof input.limit === 'number' ? input.limit : 25;
    const recent = all
      .filter((signal) => input.targetAgent === undefined || signal.targetAgent === input.targetAgent)
      .filter((signal) => input.status === undefined || signal.status === input.status)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .slice(0, limit)
      .map((signal) => ({ ...withoutPayload(signal), payloadSummary: summarizePayload(signal.payload) }));
    const metrics: Metric[] = [
      { label: 'Pending', value: statusCounts.pending ?? 0 },
      { label: 'Delivered', value: statusCounts.delivered ?? 0 },
      { label: 'Closed', value: statusCounts.closed ?? 0 },
      {
        label: 'Recent',
        value: recent.length,
        description: input.targetAgent ? `target ${input.targetAgent}` : 'all targets',
      },
    ];
    const lines = recent.map((signal) => {
      const target = signal.targetAgent ?? signal.targetChannel ?? 'no target';
      return `- ${signal.createdAt} [${signal.priority}/${signal.status}] ${signal.kind} from ${signal.source} -> ${target}: ${signal.payloadSummary}`;
    });
    const output = [
      ...metricLines(metrics),
      '',
      'Signal summary:',
      ...aggregates.map((row) => `- ${row.status} ${row.priority}: ${row.count}`),
      '',
      'Recent signals:',
      ...(lines.length > 0 ? lines : ['- none']),
    ];
    return { title: 'Signal queue', output: output.join('\n'), metadata: { metrics, aggregates, recent } };
  },
};

function withoutPayload(signal: SignalView): Omit<SignalView, 'payload'> {
  const { payload: _payload, ...rest } = signal;
  return rest;
}

/** A message's id and length, a reason or message text cut to one line, else the payload's keys. */
export function summarizePayload(payload: unknown): string {
  if (typeof payload !== 'object' || payload === null)
    return payload === undefined ? 'no payload' : 'a value';
  const fields = payload as Record<string, unknown>;
  if (typeof fields.id === 'string' && typeof fields.body === 'string') {
    return `message ${fields.id}, ${fields.body.length} chars`;
  }
  for (const key of ['reason', 'message']) {
    const text = fields[key];
    if (typeof text === 'string') {
      const line = text.replace(/\s+/g, ' ').trim();
      return line.length > 180 ? `${line.slice(0, 180)}…` : line;
    }
  }
  const keys = Object.keys(fields);
  return keys.length > 0 ? `keys: ${keys.slice(0, 8).join(', ')}` : 'no payload';
}
