export { checkSlackCredentials, type SlackCredentialCheck } from './check-credentials.js';
export { type HearSettings, type HearState, type SlackEventFacts, shouldHear, stripMention } from './hear.js';
export {
  createSlackAdapter,
  SLACK_TEXT_LIMIT,
  type SlackAdapter,
  type SlackAdapterOptions,
} from './slack-adapter.js';
export type { SlackConfig } from './types.js';
