export { type ActivationRegistry, createActivationRegistry } from './activations.js';
export {
  type BuiltinToolpackOptions,
  COMPLETIONS_NAMESPACE,
  type CompletionRecord,
  type CompletionRecords,
  type CompletionSubmission,
  type CoreToolsOptions,
  createBuiltinToolpackTools,
  createCompletionRecords,
  createCoreTools,
  createToolActivity,
  MESSAGES_SEND_DEFAULT_PRIORITY,
  resolveAgentPath,
  type ToolActivity,
  workspaceFor,
} from './builtin/index.js';
export {
  type CoreWebui,
  type CoreWebuiSources,
  createCoreWebui,
  createMessageLog,
  listToolStatus,
  type MessageLog,
  type SignalView,
  type ToolStatusEntry,
} from './builtin/webui/index.js';
export { BUILTIN_TOOLPACK_TOOLS } from './builtin-names.js';
export { loadConfiguredToolpacks, reservedToolNames } from './configured-toolpacks.js';
export {
  type ControllerAgent,
  type ControllerHost,
  type ControllerHostOptions,
  type ControllerSignalRequest,
  type ControllerSupportRequest,
  createControllerHost,
  createMessageSender,
  createOutbox,
  createProjectStore,
  DEFAULT_DELIVERY_RETRY,
  type DeliveryOutcome,
  type DeliveryRetry,
  type MessageSender,
  type MessageStatus,
  notAnAgent,
  type Outbox,
  outboxFile,
  type ProjectAgent,
  type ProjectConfigView,
  type ProjectMessage,
  type ProjectStore,
  type ProjectStoreOptions,
  type SchedulerHook,
  type SchedulerHookContext,
  type SendMessageRequest,
  type ToolpackKeyValue,
  toolpackNamespace,
  USER_RECIPIENT,
} from './controller/index.js';
export {
  createToolpacks,
  describeProblem,
  type ToolpackHook,
  type ToolpackSignals,
  type Toolpacks,
  type ToolpacksOptions,
  type ToolpacksReport,
} from './create-toolpacks.js';
export {
  type BuiltinToolpackName,
  type LoadToolpacksOptions,
  type LoadToolpacksResult,
  loadToolpacks,
  type ToolpackEntry,
} from './load-toolpacks.js';
export {
  DEFAULT_CONTROLLER,
  DEFAULT_RUNNER,
  MANIFEST_FILE,
  type ManifestTool,
  type ManifestWebuiEntry,
  type ToolpackManifest,
  ToolpackManifestSchema,
} from './manifest-schema.js';
export {
  createRunnerHost,
  createRunnerSandbox,
  describeRunnerSandbox,
  NO_SANDBOX_WARNING,
  probeSandbox,
  RUNNER_SANDBOX_SETTINGS,
  type RunnerActivation,
  type RunnerCallRequest,
  type RunnerCallResult,
  type RunnerHost,
  type RunnerHostOptions,
  type RunnerSandbox,
  type RunnerSandboxSetting,
  type RunnerSignalRequest,
  type RunnerSupportRequest,
  type SandboxProbe,
  type ToolOutput,
} from './runner/index.js';
export { toolpackRisk } from './toolpack-risk.js';
export {
  createToolpackRuntime,
  declaredTool,
  type RuntimeSignalRequest,
  type SupportRequest,
  type ToolpackRuntime,
  type ToolpackRuntimeOptions,
} from './toolpack-runtime.js';
export type {
  LoadedTool,
  LoadedToolpack,
  LoadedWebuiEntry,
  ToolpackManifestResult,
  ToolpackProblem,
  ToolpackRule,
} from './types.js';
export { type LoadToolpackManifestOptions, loadToolpackManifest } from './validate-manifest.js';
export { checkWebuiHandlers, type ListedWebuiEntry, listWebuiEntries } from './webui-check.js';
