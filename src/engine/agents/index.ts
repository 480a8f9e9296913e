export { type AgentRunner, createAgentRunner } from './agent-runner.js';
export {
  clockText,
  createFailoverState,
  type FailoverRecord,
  type FailoverState,
} from './failover/index.js';
export { SYSTEM_MARKER, senderMarker } from './model-context.js';
export { noModelReply } from './no-model-reply.js';
export {
  createModelProvider,
  ModelCallError,
  type ModelProvider,
  PROBE_TIMEOUT_MS,
  type ProviderOptions,
  probeModel,
} from './providers/index.js';
export {
  type InterruptedWork,
  MAX_ATTEMPTS,
  RESUMED_NOTICE,
  type ResumeVerdict,
  resumeVerdict,
} from './resume-turn.js';
export type { AgentRunnerOptions } from './runner-state.js';
export { buildSystemPrompt, readAgentInstructions } from './system-prompt.js';
export { createTurnStream } from './turn-stream.js';
export {
  type CompactRequest,
  type CompactResult,
  TurnAbort,
  type TurnEmit,
  type TurnEvent,
  type TurnRequest,
  type TurnResult,
  type TurnRunner,
  type TurnSession,
  type TurnStream,
  type UsageCall,
  type UsageMeter,
} from './types.js';
