export { BUILTIN_TOOLS } from './builtin/index.js';
export { createAllowlist, OWNER_ONLY_REFUSAL, type ToolPolicy } from './policy.js';
export { createToolRegistry, type ToolRegistry } from './registry.js';
export type {
  GatewayControl,
  GatewayEditRequest,
  GatewayRestartRequest,
  GatewayResult,
  SessionDetails,
  SessionSummary,
  SessionsService,
  Tool,
  ToolCallOutcome,
  ToolContext,
  ToolServices,
} from './types.js';
