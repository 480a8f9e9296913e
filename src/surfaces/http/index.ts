export { type EventStream, startEventStream } from './event-stream.js';
export {
  type AccessPolicy,
  actsAsOwner,
  type Identity,
  identityOf,
  principalOf,
  requireOwner,
  senderIdOf,
} from './identity.js';
export { NO_QUERY } from './query-schema.js';
export type { ChannelStates, ComponentProblems, SafeModeView, StoreProbe } from './routes/health.js';
export type { MetricsPort } from './routes/metrics.js';
export { SLACK_EVENTS_PATH } from './routes/slack-events.js';
export { MAX_MESSAGE_LENGTH, type WebchatPort, type WebchatStreamEvent } from './routes/webchat.js';
export {
  createHttpServer,
  type HttpServer,
  type HttpServerOptions,
  type RouteContext,
  type ServedRoute,
} from './server.js';
