import type { Tool } from '../../../engine/tools/index.js';
import { createFilePatchTool } from './file-patch.js';
import { createFileReadTool } from './file-read.js';
import { createFileWriteTool } from './file-write.js';
import type { BuiltinToolpackOptions } from './paths.js';
import { createShellExecTool } from './shell-exec.js';
import { createWebFetchTool } from './web-fetch.js';

export {
  COMPLETIONS_NAMESPACE,
  type CompletionRecord,
  type CompletionRecords,
  type CompletionSubmission,
  createCompletionRecords,
} from './completion-records.js';
export { createCompletionSubmitTool, MAX_REPORT_CHARS } from './completion-submit.js';
export { type CoreToolsOptions, createCoreTools } from './core.js';
export { applyEdits, createFilePatchTool } from './file-patch.js';
export { MAX_PATCH_BYTES } from './file-patch-operations.js';
export { createFileReadTool, MAX_READ_CHARS } from './file-read.js';
export { createFileWriteTool, MAX_WRITE_CHARS } from './file-write.js';
export { htmlToText } from './html-text.js';
export { createMessagesSendTool, MESSAGES_SEND_DEFAULT_PRIORITY } from './messages-send.js';
export {
  type AgentPath,
  artifactsRoot,
  type BuiltinToolpackOptions,
  ensureWorkspace,
  type PathAccess,
  resolveAgentPath,
  safeSegment,
  type UploadOwner,
  uploadFolder,
  uploadsRoot,
  workspaceFor,
} from './paths.js';
export { createShellExecTool, shellEnvironment } from './shell-exec.js';
export {
  createToolActivity,
  MAX_RECENT_CALLS,
  type ToolActivity,
  type ToolCallRecord,
  type ToolCallTotals,
} from './tool-activity.js';
export { summarizeInput } from './tool-call-summary.js';
export { createWaitForSignalTool } from './wait-for-signal.js';
export { checkHost, isLocalhostName, isPrivateAddress } from './web-address.js';
export { createWebFetchTool, MAX_FETCH_CHARS, MAX_REDIRECTS, untrustedText } from './web-fetch.js';

/**
 * The tools of one built-in toolpack, made once per gateway start: they close over that start's
 * config, so a config change takes effect with the restart that applies it. (`core` needs signals
 * and the store: `createCoreTools`.)
 */
export function createBuiltinToolpackTools(
  name: 'file' | 'shell' | 'web',
  options: BuiltinToolpackOptions,
): Tool[] {
  switch (name) {
    case 'file':
      return [
        createFileReadTool(options),
        createFileWriteTool(options),
        createFilePatchTool(options),
      ] as Tool[];
    case 'shell':
      return [createShellExecTool(options)] as Tool[];
    case 'web':
      return [createWebFetchTool(options)] as Tool[];
  }
}
