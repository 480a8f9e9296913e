import { createAllowlist } from '../../../../engine/tools/index.js';
import type { ToolActivity } from '../tool-activity.js';

/** One tool's status, in Suzumio's shape (`listToolStatus`): where it comes from, who may use it, its calls. */
export interface ToolStatusEntry {
  tool: string;
  /** Where it was registered: `builtin`, `toolpack core`, `toolpack <id>`, `gateway options`. */
  source: string;
  /** The toolpack that registers it (Suzumio's `toolpackId`); absent for the gateway's own tools. */
  toolpackId?: string;
  /** `builtin` for `core`, `file`, `shell`, `web`; `local` for a toolpack directory (Suzumio's `toolpackKind`). */
  toolpackKind?: 'builtin' | 'local';
  description: string;
  /** Agents whose allowlist (`agents.<id>.tools`) lets them see and run it. */
  enabledForAgents: string[];
  callCount: number;
  runningCount: number;
  completedCount: number;
  failedCount: number;
  lastStatus?: 'running' | 'completed' | 'failed';
  lastAgentId?: string;
  lastAt?: string;
  lastError?: string;
  /** `completion.submit` only: the path of the latest submission, when it gave one (Suzumio's field). */
  submittedReportPath?: string;
}

/**
 * Every registered tool's status: the agents allowed it and its calls since the start (from the
 * activity recorder, which every registered tool goes through), sorted by name.
 */
export function listToolStatus(options: {
  activity: ToolActivity;
  agents: Readonly<Record<string, { tools: readonly string[] }>>;
  /** The latest `completion.submit`'s path, shown on that tool's status. */
  submittedReportPath?: string | undefined;
}): ToolStatusEntry[] {
  const allowlists = Object.entries(options.agents).map(([id, agent]) => ({
    id,
    allows: createAllowlist(agent.tools),
  }));
  return options.activity.totals().map((total) => {
    const last = total.last;
    return {
      tool: total.tool,
      source: total.source,
      ...toolpackOf(total.source),
      description: total.description,
      enabledForAgents: allowlists.filter((agent) => agent.allows(total.tool)).map((agent) => agent.id),
      callCount: total.calls,
      runningCount: total.running,
      completedCount: total.completed,
      failedCount: total.failed,
      ...(last
        ? {
            lastStatus: last.status,
            lastAgentId: last.agentId,
            lastAt: last.finishedAt ?? last.startedAt,
            ...(last.error === undefined ? {} : { lastError: last.error }),
          }
        : {}),
      ...(total.tool === 'completion.submit' && options.submittedReportPath
        ? { submittedReportPath: options.submittedReportPath }
        : {}),
    };
  });
}

const BUILTIN_TOOLPACKS = new Set(['core', 'file', 'shell', 'web']);

/** `toolpack <id>` (how the gateway names a tool's source) as Suzumio's toolpack id and kind. */
function toolpackOf(source: string): { toolpackId?: string; toolpackKind?: 'builtin' | 'local' } {
  const id = /^toolpack (.+)$/.exec(source)?.[1];
  if (id === undefined) return {};
  return { toolpackId: id, toolpackKind: BUILTIN_TOOLPACKS.has(id) ? 'builtin' : 'local' };
}
