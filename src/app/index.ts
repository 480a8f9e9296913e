// The app: one gateway built from one config. The host (`src/host`) boots it and hands it what
// it declares in `host-ports.ts`; the CLI reaches the other folders directly.

export { type AgentRiskView, describeAgents, describeRegistry } from './agent-risk.js';
export { type AgentSkills, loadAgentSkills } from './agent-skills.js';
export {
  createGateway,
  type Gateway,
  type GatewayExtensions,
  type GatewayOptions,
} from './create-gateway.js';
export type {
  ConfigStartCheck,
  HttpToken,
  RestartKind,
  RestartNoteRequest,
  RestartNotes,
  RestartNotesContext,
  RestartRecord,
  RestartRequest,
  SafeModeState,
} from './host-ports.js';
