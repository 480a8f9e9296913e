// The control plane: the control UI's read models and actions, their HTTP routes, and one
// TypeBox contract per route (`contracts.ts`, which `web/` imports type-only).
export { type AgentRiskView, agentStatuses, describeAgents, describeRegistry } from './agent-risk.js';
export { createApprovalsInbox } from './approvals-inbox.js';
export { createConfigRoutesOptions } from './config-routes.js';
export type * from './contracts.js';
export {
  type ControlRoutesOptions,
  type ControlServerOptions,
  createControlServer,
  registerControlRoutes,
} from './control-server.js';
export { createGatewayStatus, type GatewayStatusOptions, type RestartRecord } from './gateway-status.js';
export { createLinkedSessions } from './linked-sessions.js';
export { createModelHealth, type ModelHealth } from './model-health.js';
export { createPeople } from './people.js';
export type { ApprovalsInbox, InboxDecision } from './routes/approvals.js';
export type { ConfigEditRequestView, ConfigPort, ConfigRoutesOptions } from './routes/config.js';
export type { SessionEventsPort } from './routes/events.js';
export type { LogsPort } from './routes/logs.js';
export type { PeoplePlace, PeoplePort } from './routes/people.js';
export type { SessionActionsPort, SubagentActionAnswer } from './routes/session-actions.js';
export type { SessionFilter, SessionsView } from './routes/sessions.js';
export type { StatusPort } from './routes/status.js';
export type { ToolUiOptions, WebuiEntry } from './routes/tool-ui.js';
export type { ToolpacksView } from './routes/toolpacks.js';
export type { UsagePort, UsageTotalsView, UsageView } from './routes/usage.js';
export type { WebchatHistoryPort } from './routes/webchat-history.js';
export type { LinkedSessionsPort } from './routes/webchat-linked.js';
export { createSessionActions } from './session-actions.js';
export { createSessionTitles, type NamesPort, type SessionTitles } from './session-titles.js';
export {
  createSessionsService,
  createSessionsView,
  scrubbedSessionEvents,
  scrubbedSessionsView,
} from './session-views.js';
export { probeStore, storeReadiness } from './store-probe.js';
export { createWebchatHistory, webchatSessionKey } from './webchat-history.js';
export { createWebchatJournal, type JournalEntry, type WebchatJournalReader } from './webchat-journal.js';
