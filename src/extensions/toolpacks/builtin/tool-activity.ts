import { errorText } from '../../../base/errors/index.js';
import type { Tool } from '../../../engine/tools/index.js';
import { failureReason, summarizeInput } from './tool-call-summary.js';

/** How many recent calls the recorder keeps (all tools together); older ones are forgotten. */
export const MAX_RECENT_CALLS = 200;
const MAX_SUMMARY_CHARS = 200;
const MAX_ERROR_CHARS = 600;

/** One call of a tool, as the activity panels and per-tool status show it. */
export interface ToolCallRecord {
  tool: string;
  agentId: string;
  startedAt: string;
  status: 'running' | 'completed' | 'failed';
  finishedAt?: string;
  durationMs?: number;
  /** What the call was about, never its contents: a path, a command's first line, a URL's origin and path. */
  summary: string;
  /** A failure's reason (`{ ok: false, reason }` or the thrown error), scrubbed and cut. */
  error?: string;
}

/** A tool's counters since the gateway started, and its latest call. */
export interface ToolCallTotals {
  tool: string;
  /** Where it was registered: `builtin`, `toolpack core`, `toolpack review-tools`, … */
  source: string;
  /** What the model reads about it. */
  description: string;
  calls: number;
  running: number;
  completed: number;
  failed: number;
  last?: ToolCallRecord;
}

export interface ToolActivityOptions {
  /** Secrets out of summaries and errors (the gateway's log scrubber). */
  scrub?(text: string): string;
  now?(): Date;
  /** Recent calls kept; default `MAX_RECENT_CALLS`. */
  limit?: number;
}

/**
 * A bounded record of tool calls in this process: `watch` wraps a tool's `execute` so each call is
 * recorded as `running`, then `completed`, or `failed` when it returns `{ ok: false }` or throws
 * (the error is rethrown unchanged). Arguments are summarized, never kept: no file contents, no
 * bodies, no query strings. Counters live as long as the process (a restart starts from zero).
 */
export function createToolActivity(options: ToolActivityOptions = {}) {
  const scrub = options.scrub ?? ((text: string) => text);
  const now = options.now ?? (() => new Date());
  const limit = options.limit ?? MAX_RECENT_CALLS;
  const totals = new Map<string, ToolCallTotals>();
  const recent: ToolCallRecord[] = [];

  function start(tool: string, agentId: string, input: unknown): ToolCallRecord {
    const record: ToolCallRecord = {
      tool,
      agentId,
      startedAt: now().toISOString(),
      status: 'running',
      summary: cut(scrub(summarizeInput(tool, input)), MAX_SUMMARY_CHARS),
    };
    recent.push(record);
    if (recent.length > limit) recent.splice(0, recent.length - limit);
    const counters = totals.get(tool);
    if (counters) {
      counters.calls += 1;
      counters.running += 1;
      counters.last = record;
    }
    return record;
  }

  function finish(record: ToolCallRecord, error: string | undefined): void {
    const finishedAt = now();
    record.status = error === undefined ? 'completed' : 'failed';
    record.finishedAt = finishedAt.toISOString();
    record.durationMs = Math.max(0, finishedAt.getTime() - Date.parse(record.startedAt));
    if (error !== undefined) record.error = cut(scrub(error), MAX_ERROR_CHARS);
    const counters = totals.get(record.tool);
    if (!counters) return;
    counters.running -= 1;
    if (error === undefined) counters.completed += 1;
    else counters.failed += 1;
  }

  return {
    /** The tool with its calls recorded; `source` names where it was registered. */
    watch<T extends Tool>(tool: T, source: string): T {
      totals.set(tool.name, {
        tool: tool.name,
        source,
        description: tool.description,
        calls: 0,
        running: 0,
        completed: 0,
        failed: 0,
      });
      const execute = tool.execute.bind(tool) as Tool['execute'];
      const watched: Tool['execute'] = async (input, context) => {
        const record = start(tool.name, context.agentId, input);
        try {
          const result = await execute(input, context);
          finish(record, failureReason(result));
          return result;
        } catch (error) {
          finish(record, errorText(error));
          throw error;
        }
      };
      return { ...tool, execute: watched };
    },
    /** The most recent calls of these tools (all when `tools` is absent), newest first. */
    recent(tools: readonly string[] | undefined, count: number): ToolCallRecord[] {
      const chosen = recent.filter((record) => tools === undefined || tools.includes(record.tool));
      return chosen.slice(-count).reverse();
    },
    /** Every watched tool's counters, by name. */
    totals(): ToolCallTotals[] {
      return [...totals.values()].sort((a, b) => a.tool.localeCompare(b.tool));
    },
  };
}

export type ToolActivity = ReturnType<typeof createToolActivity>;

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
