export type { AccessPolicy } from './identity.js';
export type { ApprovalsInbox, ApprovalView, InboxDecision } from './routes/approvals.js';
export type { ConfigEditRequestView, ConfigPort, ConfigRoutesOptions } from './routes/config.js';
export type { SessionEventsPort } from './routes/events.js';
export type { ChannelStates, ComponentProblems, SafeModeView, StoreProbe } from './routes/health.js';
export type { MetricsPort } from './routes/metrics.js';
export type {
  SessionActionsPort,
  SubagentActionAnswer,
  SubagentNode,
} from './routes/session-actions.js';
export type { SessionFilter, SessionsView } from './routes/sessions.js';
export { SLACK_EVENTS_PATH } from './routes/slack-events.js';
export type {
  AgentRiskStatus,
  ChannelStatus,
  FailoverView,
  McpServerView,
  ModelStatus,
  StatusPort,
  StatusView,
} from './routes/status.js';
export type {
  RosterAgentView,
  ToolStatusView,
  ToolUiOptions,
  WebuiEntryView,
  WebuiOutput,
} from './routes/tool-ui.js';
export type { SchedulerHookView, ToolpacksView } from './routes/toolpacks.js';
export type { UsagePort, UsageTotalsView, UsageView } from './routes/usage.js';
export type { WebchatPort, WebchatStreamEvent } from './routes/webchat.js';
export type {
  WebchatHistoryMessage,
  WebchatHistoryPort,
  WebchatThreadView,
} from './routes/webchat-history.js';
export { createHttpServer, type HttpServer, type HttpServerOptions, type ServedRoute } from './server.js';
