import type { FastifyInstance } from 'fastify';

/**
 * One controller's scheduler hook as `/api/toolpacks` shows it. Declared here (http may not
 * import signals): the gateway passes the signal scheduler's own reports, which have this shape.
 */
export interface SchedulerHookView {
  toolpackId: string;
  status: 'ok' | 'failing';
  /** Failures in a row (0 when the last run succeeded). */
  failures: number;
  /** The last error's message, while failing (scrubbed like the log). */
  error?: string;
  /** When the current run of failures began (ISO time). */
  since?: string;
  /** The wait before the next attempt. */
  backoffMs?: number;
  nextAttemptAt?: string;
}

/** What the HTTP layer may read of the toolpacks: what loaded and why the others were skipped. */
export interface ToolpacksView {
  report(): {
    /** `notProvided`: Suzumio-internal APIs the controller read that are not provided (`store.db`). */
    toolpacks: { id: string; directory: string; tools: string[]; webui: string[]; notProvided?: string[] }[];
    builtins: string[];
    problems: { file: string; rule: string; message: string; pointer?: string }[];
    /** Each controller's scheduler hook: ok, or failing with its last error and backoff. */
    schedulerHooks: SchedulerHookView[];
  };
}

export function registerToolpackRoutes(app: FastifyInstance, toolpacks: ToolpacksView): void {
  app.get('/api/toolpacks', async () => toolpacks.report());
}
