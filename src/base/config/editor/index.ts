export {
  type AgentEditDecision,
  agentEditRefusal,
  findAgentEditDecisions,
  ownerWays,
  refusedAgentEdit,
} from './agent-editable.js';
export { clipDiff, diffConfigTexts, REVIEW_DIFF_LIMIT } from './config-diff.js';
export { STALE_HASH_ERROR } from './config-edit-plan.js';
export type {
  ConfigChange,
  ConfigChangeView,
  ConfigEditor,
  ConfigEditorOptions,
  ConfigEditPreview,
  ConfigEditRequest,
  ConfigEditResult,
  ConfigSnapshot,
  ConfigUndoRequest,
} from './config-edit-types.js';
export { createConfigEditor } from './config-editor.js';
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
export { type ConfigTextEdit, editConfigText, restorePlaceholders } from './edit-text.js';
export { applyMergePatch } from './merge-patch.js';
export { OPERATOR_ID, operatorLockout } from './operator-lockout.js';
export {
  addedEnvReference,
  findRemovals,
  findToolProtectedPaths,
  type ProtectedPath,
  type ProtectionKind,
  refusedProtectedPath,
} from './tool-guard.js';
