// What the Tools page reads from the gateway: the project's WebUI entries, the roster, the per-tool
// status (all under `/api/projects/<project>/`), and the toolpack report (`/api/toolpacks`).
import { api } from '../api.js';

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

export interface WebuiEntryView {
  toolpack: string;
  id: string;
  title: string;
  description: string | null;
  kind: 'panel' | 'action';
  inputSchema: JsonSchema | null;
  submitLabel: string | null;
}

export interface RosterAgentView {
  id: string;
  displayName: string;
}

/** What a handler answered: `output` is text (shown as Markdown) or any JSON. */
export interface WebuiAnswer {
  output?: unknown;
  title?: string;
  metadata?: { metrics?: unknown } & Record<string, unknown>;
}

export interface ToolStatusView {
  tool: string;
  source: string;
  enabledForAgents: string[];
  callCount: number;
  runningCount: number;
  failedCount: number;
  lastStatus?: 'running' | 'completed' | 'failed';
  lastAgentId?: string;
  lastAt?: string;
  lastError?: string;
}

export interface SchedulerHookView {
  toolpackId: string;
  status: 'ok' | 'failing';
  failures: number;
  error?: string;
  since?: string;
  backoffMs?: number;
  /** When the next attempt runs (ISO time), while failing. */
  nextAttemptAt?: string;
}

export interface ToolpackReport {
  toolpacks: { id: string; tools?: string[]; webui?: string[]; notProvided?: string[] }[];
  problems: { file: string; rule: string; message: string; pointer?: string }[];
  schedulerHooks: SchedulerHookView[];
}

const projectPath = (project: string) => `/api/projects/${encodeURIComponent(project)}`;

export async function loadEntries(
  project: string,
): Promise<{ entries: WebuiEntryView[]; roster: RosterAgentView[] }> {
  const [{ entries }, { agents }] = await Promise.all([
    api<{ entries: WebuiEntryView[] }>(`${projectPath(project)}/tool-ui`),
    api<{ agents: RosterAgentView[] }>(`${projectPath(project)}/roster`),
  ]);
  return { entries, roster: agents };
}

export function runEntry(project: string, entry: WebuiEntryView, input: unknown): Promise<WebuiAnswer> {
  const path = `${projectPath(project)}/tool-ui/${encodeURIComponent(entry.toolpack)}/${encodeURIComponent(entry.id)}`;
  return api<WebuiAnswer>(path, input);
}

export async function loadToolStatus(project: string): Promise<ToolStatusView[]> {
  return (await api<{ tools: ToolStatusView[] }>(`${projectPath(project)}/tool-status`)).tools;
}

export function loadToolpackReport(): Promise<ToolpackReport> {
  return api<ToolpackReport>('/api/toolpacks');
}
