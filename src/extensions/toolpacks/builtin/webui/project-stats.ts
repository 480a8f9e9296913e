import { type CoreWebuiEntry, type Metric, metricLines } from './types.js';

/** `project.stats`: the project's agents, messages, signals, tool calls and toolpacks, as counts. */
export const projectStatsEntry: CoreWebuiEntry = {
  id: 'project.stats',
  title: 'Project statistics',
  description:
    'Live project, agent, message, signal and tool-call counts (messages and tool calls since the gateway started).',
  kind: 'panel',
  async run(sources) {
    const agents = sources.agents();
    const agentStatuses = countBy(agents.map((agent) => agent.status));
    const signals = await sources.signals();
    const signalStatuses = countBy(signals.map((signal) => signal.status));
    const totals = sources.activity.totals();
    const sum = (pick: (total: (typeof totals)[number]) => number) =>
      totals.reduce((all, total) => all + pick(total), 0);
    const toolCalls = sum((total) => total.calls);
    const metrics: Metric[] = [
      { label: 'Project', value: sources.projectId },
      { label: 'Agents', value: agents.length, description: formatCounts(agentStatuses) },
      { label: 'Messages', value: sources.messages.count() },
      { label: 'Signals', value: signals.length, description: formatCounts(signalStatuses) },
      {
        label: 'Tool calls',
        value: toolCalls,
        description: `${sum((total) => total.running)} running, ${sum((total) => total.failed)} failed`,
      },
      {
        label: 'Toolpacks',
        value: sources.builtins.length + sources.toolpackCount,
        description: `${sources.builtins.join(', ') || 'no built-ins'}; ${sources.toolpackCount} local`,
      },
    ];
    const stats = {
      agentCount: agents.length,
      messageCount: sources.messages.count(),
      signalCount: signals.length,
      toolCallCount: toolCalls,
      toolpackCount: sources.builtins.length + sources.toolpackCount,
    };
    return {
      title: 'Project statistics',
      output: metricLines(metrics).join('\n'),
      metadata: { metrics, stats, agentStatuses, signalStatuses },
    };
  },
};

export function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

export function formatCounts(counts: Record<string, number>): string {
  return (
    Object.entries(counts)
      .map(([key, value]) => `${value} ${key}`)
      .join(', ') || 'none'
  );
}
