import type { TObject } from '@sinclair/typebox';
import type { AgentMessage, Priority, SendOutcome } from '../../../../base/messages/index.js';
import type { CompletionRecords } from '../completion-records.js';
import type { ToolActivity } from '../tool-activity.js';
import type { MessageLog } from './message-log.js';

/** A signal as `coordination.signals` shows it (the signals folder's queue, seen from here). */
export interface SignalView {
  id: string;
  kind: string;
  targetAgent?: string | undefined;
  targetChannel?: string | undefined;
  priority: Priority;
  /** `pending`: queued; `delivered`: taken by a wake turn still running; `closed`: a useful effect kept. */
  status: 'pending' | 'delivered' | 'closed';
  source: string;
  createdAt: string;
  payload?: unknown;
  merged: number;
}

/** What the core WebUI entries read and do; the gateway builds it from the running services. */
export interface CoreWebuiSources {
  projectId: string;
  /** The built-in toolpacks `tools.toolpacks` names (`core`, `file`, `shell`, `web`). */
  builtins: readonly string[];
  /** Local toolpacks loaded. */
  toolpackCount: number;
  /** Who gets a message that names neither a recipient nor a channel. */
  coordinatorAgent: string;
  /** The named routes of config `routes`. */
  routes: readonly string[];
  agents(): readonly { id: string; displayName: string; status: string }[];
  /** The one send every sender goes through (already watched by `messages`). */
  send(message: AgentMessage): Promise<SendOutcome>;
  messages: MessageLog;
  signals(): Promise<readonly SignalView[]>;
  activity: ToolActivity;
  /** `completion.submit`'s submissions (store namespace `completions`), read only. */
  completions: Pick<CompletionRecords, 'list' | 'latest'>;
}

/** What a handler answers: `{ output, title, metadata }`, like a toolpack's WebUI handler. */
export interface CoreWebuiOutput {
  title: string;
  output: string;
  metadata: Record<string, unknown>;
}

/** One built-in WebUI entry: its description for the Tools page and its handler. */
export interface CoreWebuiEntry {
  id: string;
  title: string;
  description: string;
  kind: 'panel' | 'action';
  inputSchema?: TObject;
  submitLabel?: string;
  /** `input` was validated against `inputSchema` (defaults filled in) by the HTTP API. */
  run(sources: CoreWebuiSources, input: Record<string, unknown>): Promise<CoreWebuiOutput>;
}

/** One line of a metrics card: `Messages: 3 (user <-> main)`. */
export interface Metric {
  label: string;
  value: string | number;
  description?: string;
}

export function metricLines(metrics: readonly Metric[]): string[] {
  return metrics.map(
    (metric) => `${metric.label}: ${metric.value}${metric.description ? ` (${metric.description})` : ''}`,
  );
}
