// What the Tools page reads from the gateway: the project's WebUI entries, the roster, the per-tool
// status (all under `/api/projects/<project>/`), and the toolpack report (`/api/toolpacks`), in the
// server's contracts (`./types.ts`).
import { api } from '../api.js';
import type {
  RosterView,
  ToolpackReport,
  ToolStatusPage,
  WebuiAnswer,
  WebuiEntriesView,
  WebuiEntryView,
} from './types.js';

export type * from './types.js';

/** A JSON Schema as a toolpack's manifest declares it (only the parts the form reads are typed). */
export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  title?: string;
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
}

const projectPath = (project: string) => `/api/projects/${encodeURIComponent(project)}`;

export async function loadEntries(
  project: string,
): Promise<{ entries: WebuiEntryView[]; roster: RosterView['agents'] }> {
  const [{ entries }, { agents }] = await Promise.all([
    api<WebuiEntriesView>(`${projectPath(project)}/tool-ui`),
    api<RosterView>(`${projectPath(project)}/roster`),
  ]);
  return { entries, roster: agents };
}

export function runEntry(project: string, entry: WebuiEntryView, input: unknown): Promise<WebuiAnswer> {
  const path = `${projectPath(project)}/tool-ui/${encodeURIComponent(entry.toolpack)}/${encodeURIComponent(entry.id)}`;
  return api<WebuiAnswer>(path, input);
}

export async function loadToolStatus(project: string): Promise<ToolStatusPage['tools']> {
  return (await api<ToolStatusPage>(`${projectPath(project)}/tool-status`)).tools;
}

export function loadToolpackReport(): Promise<ToolpackReport> {
  return api<ToolpackReport>('/api/toolpacks');
}
