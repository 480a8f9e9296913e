import type { FastifyInstance } from 'fastify';
import type { HookHealth } from '../../signals/index.js';

/** What the HTTP layer may read of the toolpacks: what loaded and why the others were skipped. */
export interface ToolpacksView {
  report(): {
    toolpacks: { id: string; directory: string; tools: string[]; webui: string[] }[];
    builtins: string[];
    problems: { file: string; rule: string; message: string; pointer?: string }[];
    /** Each controller's scheduler hook: ok, or failing with its last error and backoff. */
    schedulerHooks: HookHealth[];
  };
}

export function registerToolpackRoutes(app: FastifyInstance, toolpacks: ToolpacksView): void {
  app.get('/api/toolpacks', async () => toolpacks.report());
}
