export {
  type AgentEditDecision,
  agentEditRefusal,
  findAgentEditDecisions,
  ownerWays,
  refusedAgentEdit,
} from './agent-editable.js';
export { absentConfigFile, defaultToolpackEntries, PACKAGED_TOOLPACKS_DIR } from './builtin-defaults.js';
export { clipDiff, diffConfigTexts, REVIEW_DIFF_LIMIT } from './config-diff.js';
export {
  type ConfigChange,
  type ConfigChangeView,
  type ConfigEditor,
  type ConfigEditorOptions,
  type ConfigEditPreview,
  type ConfigEditRequest,
  type ConfigEditResult,
  type ConfigSnapshot,
  type ConfigUndoRequest,
  createConfigEditor,
  STALE_HASH_ERROR,
} from './config-editor.js';
export {
  AUDIT_FILE,
  BACKUP_DIR,
  BACKUPS_KEPT,
  type ConfigAuditRecord,
  readConfigFile,
} from './config-files.js';
export {
  backUpRunningConfig,
  droppedParts,
  keepReadyConfig,
  lastReadyFile,
  restoreStartedConfig,
  writtenByEditor,
} from './config-keep.js';
export {
  findLooseConfigFile,
  holdsSecrets,
  type LooseConfigFile,
  modeText,
  tightenConfigFile,
} from './config-mode.js';
export {
  compileConfigValidator,
  STANDALONE_CONFIG_VALIDATOR,
} from './config-validator.js';
export { type ConfigTextEdit, editConfigText, restorePlaceholders } from './edit-text.js';
export { escapePointer, substituteEnv } from './env.js';
export { renderConfigJsonSchema } from './json-schema.js';
export {
  DEFAULT_CONFIG_PATH,
  hashConfigText,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfig,
  parseConfigText,
  parseJsonc,
} from './load.js';
export { applyMergePatch } from './merge-patch.js';
export { modelChain, modelChainText, primaryModel } from './model-chain.js';
export { tokenCost } from './model-price.js';
export {
  collectSecretValues,
  createSecretScrubber,
  findSecretPaths,
  REDACTED,
  redactConfig,
  type SecretPath,
} from './redact.js';
export type {
  AgentConfig,
  Binding,
  BudgetsConfig,
  Config,
  ContextConfig,
  LogConfig,
  McpServerConfig,
  ModelConfig,
  UpdateConfig,
} from './schema.js';
export { ConfigSchema } from './schema.js';
export {
  AGENT_EDITABLE_KEYWORD,
  SECRET_KEYWORD,
  StringEnum,
  TOOL_PROTECTED_KEYWORD,
} from './schema-helpers.js';
export {
  formatConfigPath,
  lookupConfigSchema,
  parseConfigPath,
  type SchemaLookup,
  type SchemaLookupChild,
  type SchemaLookupResult,
} from './schema-lookup.js';
export { CONFIG_RISK_CLASSES } from './schema-tools.js';
export {
  addedEnvReference,
  findRemovals,
  findToolProtectedPaths,
  type ProtectedPath,
  type ProtectionKind,
  refusedProtectedPath,
} from './tool-guard.js';
export { validateConfig } from './validate.js';
