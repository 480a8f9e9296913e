export { checkDiscordCredentials, type DiscordCredentialCheck } from './check-credentials.js';
export { createDiscordAdapter, type DiscordAdapterOptions } from './discord-adapter.js';
export {
  type DiscordConfig,
  type HearCandidate,
  type HearSettings,
  type HearState,
  shouldHear,
} from './should-hear.js';
