export {
  createFailoverProvider,
  type FailoverProvider,
  type FailoverProviderOptions,
} from './failover-provider.js';
export { clockText, createFailoverState, type FailoverRecord, type FailoverState } from './failover-state.js';
