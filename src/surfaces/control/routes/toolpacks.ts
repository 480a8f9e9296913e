import type { FastifyInstance } from 'fastify';
import type { ToolpackReport } from '../contracts.js';

/** What the control plane may read of the toolpacks: what loaded and why the others were skipped. */
export interface ToolpacksView {
  report(): ToolpackReport;
}

export function registerToolpackRoutes(app: FastifyInstance, toolpacks: ToolpacksView): void {
  app.get('/api/toolpacks', async () => toolpacks.report());
}
