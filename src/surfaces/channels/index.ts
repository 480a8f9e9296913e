export type { ReconnectSettings } from './backoff.js';
export { type ChannelCredentialCheck, checkChannelCredentials } from './check-credentials.js';
export { type ChannelMemory, createLocalMemory } from './memory.js';
export { type ChannelNames, createChannelNames, type NameLookup, nameKey, readNames } from './names.js';
export { describeStartFailure } from './network-error.js';
export { createOutboundFor } from './outbound.js';
export { loadDiscordAdapter, loadSlackAdapter } from './platforms.js';
export type { SlackAdapter } from './slack/index.js';
export {
  type ChannelDetail,
  type ChannelState,
  type ChannelSupervisor,
  createChannelSupervisor,
  type SupervisedChannel,
} from './supervisor.js';
export type { ChannelAdapter, ConnectionEvent, InboundFileStore } from './types.js';
export {
  createWebchatAdapter,
  type WebchatAdapter,
  type WebchatEvent,
  type WebchatJournal,
  type WebchatShown,
} from './webchat/index.js';
