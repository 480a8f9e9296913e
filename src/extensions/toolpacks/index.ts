export { createActivationRegistry } from './activations.js';
export {
  type BuiltinToolpackOptions,
  createBuiltinToolpackTools,
  createCompletionRecords,
  createCoreTools,
  createToolActivity,
  resolveAgentPath,
  safeSegment,
  type ToolActivity,
  uploadFolder,
  uploadsRoot,
} from './builtin/index.js';
export {
  type CoreWebui,
  createCoreWebui,
  createMessageLog,
  listToolStatus,
  type MessageLog,
} from './builtin/webui/index.js';
export { BUILTIN_TOOLPACK_TOOLS } from './builtin-names.js';
export { loadConfiguredToolpacks, reservedToolNames } from './configured-toolpacks.js';
export {
  type ControllerHost,
  type ControllerSignalRequest,
  createControllerHost,
  createMessageSender,
  createOutbox,
  createProjectStore,
  createStoreDb,
  type DeliveryOutcome,
  type DeliveryRetry,
  type Outbox,
  outboxFile,
  type ProjectMessage,
  type ProjectStore,
  type ProjectStoreOptions,
  type SchedulerHook,
  STORE_DB_MAX_ROWS,
  type StoreDbSignal,
  toolpackNamespace,
} from './controller/index.js';
export type { ToolpackSignals } from './create-controllers.js';
export { createToolpacks, describeProblem, type Toolpacks } from './create-toolpacks.js';
export { type BuiltinToolpackName, type LoadToolpacksResult, loadToolpacks } from './load-toolpacks.js';
export { MANIFEST_FILE, ToolpackManifestSchema } from './manifest-schema.js';
export {
  createRunnerHost,
  createRunnerSandbox,
  describeRunnerSandbox,
  probeSandbox,
  type RunnerActivation,
  type RunnerCallResult,
  type RunnerHost,
  type RunnerHostOptions,
  type RunnerSandboxSetting,
  type RunnerSignalRequest,
  type RunnerSupportRequest,
  type SandboxProbe,
} from './runner/index.js';
export { toolpackRisk } from './toolpack-risk.js';
export { createToolpackRuntime, declaredTool, type ToolpackRuntime } from './toolpack-runtime.js';
export type { LoadedToolpack, ToolpackProblem, ToolpackRule } from './types.js';
export { loadToolpackManifest } from './validate-manifest.js';
export { checkWebuiHandlers, listWebuiEntries } from './webui-check.js';
