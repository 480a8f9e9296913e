import type { AgentMessage, CommunicationPolicy, SendOutcome } from '../../../base/messages/index.js';
import type { Tool } from '../../../engine/tools/index.js';
import type { CompletionRecords } from './completion-records.js';
import { createCompletionSubmitTool } from './completion-submit.js';
import { createFilePatchTool } from './file-patch.js';
import { createFileReadTool } from './file-read.js';
import { createFileWriteTool } from './file-write.js';
import { createMessagesSendTool } from './messages-send.js';
import type { BuiltinToolpackOptions } from './paths.js';
import { createWaitForSignalTool } from './wait-for-signal.js';

export interface CoreToolsOptions extends BuiltinToolpackOptions {
  send(message: AgentMessage): Promise<SendOutcome>;
  /** Config `routes`: named route → `platform:chat`. */
  routes: Readonly<Record<string, string>>;
  /** Config `communication`, enforced by `messages.send`. */
  policy: CommunicationPolicy;
  /** Where `completion.submit` stores its submissions. */
  completions: CompletionRecords;
}

/**
 * The `core` toolpack, as Suzumio has it: messages, waiting for a signal, the final report, and the
 * file tools (`file.read|write|patch`, the same tools as the `file` toolpack's).
 */
export function createCoreTools(options: CoreToolsOptions): Tool[] {
  return [
    createMessagesSendTool(options),
    createWaitForSignalTool({ ...options, agents: Object.keys(options.config.agents) }),
    createCompletionSubmitTool({ ...options, records: options.completions }),
    createFileReadTool(options),
    createFileWriteTool(options),
    createFilePatchTool(options),
  ] as Tool[];
}
