import type { Config } from '../base/config/index.js';
import type { Logger } from '../base/logging/index.js';
import { communicationPolicy } from '../base/messages/index.js';
import type { SignalDelivery } from '../engine/signals/index.js';
import {
  type CoreWebui,
  createCompletionRecords,
  createCoreWebui,
  listToolStatus,
  type MessageLog,
  type ToolActivity,
  type Toolpacks,
} from '../extensions/toolpacks/index.js';
import type { Store } from '../records/store/index.js';

/** What the gateway watches for the Tools page: every tool call, every message sent. */
export interface Observed {
  activity: ToolActivity;
  messages: MessageLog;
}

/**
 * The built-in toolpacks' WebUI entries over the running services, beside the local toolpacks'
 * entries on one Tools API: the built-in ones first, then the local ones. What an entry answers
 * is scrubbed of secrets like the log before it reaches the page.
 */
export function buildToolUi(options: {
  config: Config;
  toolpacks: Toolpacks;
  signals: SignalDelivery;
  observed: Observed;
  store: Store;
  scrub(text: string): string;
  logger: Logger;
}) {
  const { config, toolpacks, observed, scrub, logger } = options;
  const completions = createCompletionRecords({ store: options.store });
  const core: CoreWebui = createCoreWebui({
    projectId: config.project.id,
    builtins: toolpacks.builtins,
    toolpackCount: toolpacks.controllers.size,
    coordinatorAgent: communicationPolicy(config).coordinator,
    routes: Object.keys(config.routes),
    agents: () =>
      options.signals.agents().map(({ id, displayName, status }) => ({ id, displayName, status })),
    send: options.signals.send,
    messages: observed.messages,
    signals: () => options.signals.queue.list(),
    activity: observed.activity,
    completions,
  });
  return {
    entries: () => [...core.entries(), ...toolpacks.webuiEntries()],
    async run(toolpackId: string, entryId: string, input: unknown) {
      if (!core.offers(toolpackId)) return toolpacks.runWebui(toolpackId, entryId, input);
      try {
        const answer = await core.run(toolpackId, entryId, input);
        return {
          title: answer.title,
          output: scrub(answer.output),
          metadata: scrubbed(answer.metadata, scrub),
        };
      } catch (error) {
        const refused = (error as { statusCode?: unknown }).statusCode === 400;
        if (refused) logger.info({ toolpack: toolpackId, entry: entryId, err: error }, 'WebUI input refused');
        else logger.error({ toolpack: toolpackId, entry: entryId, err: error }, 'WebUI entry failed');
        throw error;
      }
    },
    toolStatus: async () => {
      const latest = await completions.latest();
      const status = listToolStatus({
        activity: observed.activity,
        agents: config.agents,
        submittedReportPath: latest?.path,
      });
      return status.map((tool) => (tool.lastError ? { ...tool, lastError: scrub(tool.lastError) } : tool));
    },
  };
}

/** Every string in a JSON value scrubbed. */
function scrubbed(value: unknown, scrub: (text: string) => string): unknown {
  if (typeof value === 'string') return scrub(value);
  if (Array.isArray(value)) return value.map((item) => scrubbed(item, scrub));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, scrubbed(item, scrub)]));
}
