import { SwitchboardError } from '../../../../base/errors/index.js';
import { completionReportEntry } from './completion-report.js';
import { coordinationSignalsEntry } from './coordination-signals.js';
import { messagesConversationEntry } from './messages-conversation.js';
import { messagesSendEntry } from './messages-send.js';
import { projectStatsEntry } from './project-stats.js';
import { fileActivityEntry, shellActivityEntry, webActivityEntry } from './tool-activity-panels.js';
import type { CoreWebuiEntry, CoreWebuiOutput, CoreWebuiSources } from './types.js';

export { createMessageLog, type LoggedMessage, MAX_LOGGED_MESSAGES, type MessageLog } from './message-log.js';
export { listToolStatus, type ToolStatusEntry } from './tool-status.js';
export type {
  CoreWebuiEntry,
  CoreWebuiOutput,
  CoreWebuiSources,
  SignalView,
} from './types.js';

/** Suzumio's built-in WebUI entries, by the built-in toolpack that offers them. */
const CORE_ENTRIES: readonly CoreWebuiEntry[] = [
  projectStatsEntry,
  messagesConversationEntry,
  messagesSendEntry,
  coordinationSignalsEntry,
  completionReportEntry,
  fileActivityEntry,
];

/** A built-in entry as the Tools API lists it (the same shape as a toolpack manifest's). */
export interface CoreWebuiListing {
  toolpack: string;
  id: string;
  title: string;
  description: string;
  kind: 'panel' | 'action';
  inputSchema?: Record<string, unknown>;
  submitLabel?: string;
}

/**
 * The built-in toolpacks' WebUI entries for the toolpacks `tools.toolpacks` names: `core` offers
 * six (with `file.activity`, since `file.*` is part of core), `shell` and `web` one each, and a
 * `file` entry without `core` offers `file.activity` itself. They run in process, over `sources`.
 */
export function createCoreWebui(sources: CoreWebuiSources) {
  const offered = new Map<string, CoreWebuiEntry[]>();
  if (sources.builtins.includes('core')) offered.set('core', [...CORE_ENTRIES]);
  else if (sources.builtins.includes('file')) offered.set('file', [fileActivityEntry]);
  if (sources.builtins.includes('shell')) offered.set('shell', [shellActivityEntry]);
  if (sources.builtins.includes('web')) offered.set('web', [webActivityEntry]);
  const listings: CoreWebuiListing[] = [...offered].flatMap(([toolpack, entries]) =>
    entries.map((entry) => ({
      toolpack,
      id: entry.id,
      title: entry.title,
      description: entry.description,
      kind: entry.kind,
      ...(entry.inputSchema ? { inputSchema: entry.inputSchema as unknown as Record<string, unknown> } : {}),
      ...(entry.submitLabel ? { submitLabel: entry.submitLabel } : {}),
    })),
  );
  return {
    /** The entries, in Suzumio's order. */
    entries: (): readonly CoreWebuiListing[] => listings,
    /** Whether this toolpack id is a built-in one with entries (else the local toolpacks run it). */
    offers: (toolpack: string) => offered.has(toolpack),
    /** Runs an entry; input was validated against its schema (defaults filled in). */
    async run(toolpack: string, entryId: string, input: unknown): Promise<CoreWebuiOutput> {
      const entry = offered.get(toolpack)?.find((candidate) => candidate.id === entryId);
      if (!entry)
        throw new SwitchboardError(
          'TOOLPACK_NO_HANDLER',
          `the ${toolpack} toolpack has no WebUI entry ${entryId}`,
        );
      const fields = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
      return entry.run(sources, fields);
    },
  };
}

export type CoreWebui = ReturnType<typeof createCoreWebui>;
