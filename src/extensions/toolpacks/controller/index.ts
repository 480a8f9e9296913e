export {
  type ControllerAgent,
  type ControllerHost,
  type ControllerHostOptions,
  type ControllerSignalRequest,
  type ControllerSupportRequest,
  createControllerHost,
  type SchedulerHook,
  type SchedulerHookContext,
} from './controller-host.js';
export {
  createMessageSender,
  DEFAULT_DELIVERY_RETRY,
  type DeliveryOutcome,
  type DeliveryRetry,
  type MessageSender,
  type MessageSenderOptions,
} from './message-sender.js';
export { createOutbox, type MessageStatus, type Outbox, outboxFile } from './outbox.js';
export {
  notAnAgent,
  type ProjectMessage,
  type SendMessageRequest,
  USER_RECIPIENT,
} from './project-message.js';
export {
  createProjectStore,
  type ProjectAgent,
  type ProjectConfigView,
  type ProjectStore,
  type ProjectStoreOptions,
} from './project-store.js';
export {
  createStoreDb,
  STORE_DB_MAX_ROWS,
  STORE_DB_TABLES,
  type StoreDb,
  type StoreDbActivation,
  type StoreDbMessage,
  type StoreDbSignal,
  type StoreDbSources,
  type StoreDbStatement,
} from './store-db.js';
export { type ToolpackKeyValue, toolpackNamespace } from './toolpack-kv.js';
