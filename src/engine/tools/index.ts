export type {
  ApprovalVerdict,
  DecisionInput,
  DecisionOutcome,
  GatedCall,
  HeldCommand,
  ToolCallReview,
} from './approval-gate.js';
export type { ChatAttachOutcome, ChatAttachRequest, ChatFilesPort } from './chat-files-port.js';
export type {
  ConfigEditOutcome,
  ConfigEditPlanView,
  ConfigView,
  ConfigWritten,
  GatewayControl,
  GatewayEditRequest,
  GatewayRestartRequest,
  GatewayUndoRequest,
  ScheduledRestart,
  UpdatePort,
  UpdateRunRequest,
} from './gateway-control.js';
export { GATEWAY_TOOLS } from './gateway-tools/index.js';
export { createSkillsLoadTool, type SkillsLoadOptions } from './gateway-tools/skills-load.js';
export { createAllowlist, OWNER_ONLY_REFUSAL, type ToolPolicy } from './policy.js';
export { createToolRegistry, type ToolRegistry, type ToolRegistryOptions } from './registry.js';
export { TOOL_REQUIREMENTS, type ToolRequirement, unmetRequirement } from './requirements.js';
export {
  ASKING_RISK,
  asksByDefault,
  createRiskSummaries,
  isRestartSafe,
  type RiskSummaries,
  type RiskSummary,
  riskOf,
  riskSummary,
  riskSummaryText,
  UNDECLARED_RISK,
  unavailableText,
  withRiskOverride,
} from './risk.js';
export { roleRefusal, toolAction } from './role-policy.js';
export {
  type SpawnedRun,
  type SpawnRequest,
  type SpawnResult,
  SUBAGENTS_ACTIONS,
  type SubagentCaller,
  type SubagentListEntry,
  type SubagentsActionInput,
  type SubagentsActionResult,
  type SubagentsPort,
} from './subagents-port.js';
export { causerOf, type TurnScope, turnScope } from './turn-scope.js';
export type {
  ApprovalsPort,
  SessionsService,
  Tool,
  ToolCallOutcome,
  ToolContext,
  ToolServices,
} from './types.js';
export { RISK_CLASSES, type RiskClass } from './types.js';
