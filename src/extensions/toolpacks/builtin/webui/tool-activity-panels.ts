import { Type } from '@sinclair/typebox';
import type { ToolCallRecord } from '../tool-activity.js';
import {
  type CoreWebuiEntry,
  type CoreWebuiOutput,
  type CoreWebuiSources,
  type Metric,
  metricLines,
} from './types.js';

const ActivityInput = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Most recent calls to show.' }),
    ),
  },
  { additionalProperties: false },
);

export const FILE_TOOLS = ['file.read', 'file.write', 'file.patch'] as const;

/** One activity panel over the recorder: counts per tool, then the recent calls (newest first). */
function activityEntry(
  id: string,
  title: string,
  description: string,
  tools: readonly string[],
): CoreWebuiEntry {
  return {
    id,
    title,
    description,
    kind: 'panel',
    submitLabel: 'Refresh',
    inputSchema: ActivityInput,
    run: async (sources, input) => activityReport(sources, title, tools, Number(input.limit ?? 20)),
  };
}

function activityReport(
  sources: CoreWebuiSources,
  title: string,
  tools: readonly string[],
  limit: number,
): CoreWebuiOutput {
  const totals = new Map(sources.activity.totals().map((total) => [total.tool, total]));
  const metrics: Metric[] = tools.map((tool) => {
    const total = totals.get(tool);
    return {
      label: tool,
      value: total?.calls ?? 0,
      description: `${total?.running ?? 0} running, ${total?.completed ?? 0} completed, ${total?.failed ?? 0} failed`,
    };
  });
  const recent = sources.activity.recent(tools, limit);
  const output = [
    `${title}:`,
    ...metricLines(metrics).map((line) => `- ${line}`),
    '',
    'Recent activity:',
    ...(recent.length > 0 ? recent.map(formatCall) : ['- none']),
  ];
  return { title, output: output.join('\n'), metadata: { metrics, recent } };
}

function formatCall(call: ToolCallRecord): string {
  const took = call.durationMs === undefined ? '' : `, ${call.durationMs} ms`;
  const error = call.error ? `\n  error: ${call.error.replace(/\s+/g, ' ')}` : '';
  return `- ${call.startedAt} [${call.status}${took}] ${call.agentId} ${call.tool}: ${call.summary}${error}`;
}

/** `file.activity`: file.read, file.write and file.patch calls, paths only (no contents). */
export const fileActivityEntry = activityEntry(
  'file.activity',
  'File tool activity',
  'file.read, file.write and file.patch calls, without file contents.',
  FILE_TOOLS,
);

/** `shell.activity`: shell.exec calls, each command's first line, failures, running commands. */
export const shellActivityEntry = activityEntry(
  'shell.activity',
  'Shell activity',
  'shell.exec calls, recent commands (first line), failures and running commands.',
  ['shell.exec'],
);

/** `web.activity`: web.fetch calls, each URL's origin and path, failures, running fetches. */
export const webActivityEntry = activityEntry(
  'web.activity',
  'Web fetch activity',
  'web.fetch calls, recent URLs (origin and path), failures and running fetches.',
  ['web.fetch'],
);
