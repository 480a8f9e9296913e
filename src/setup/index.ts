export {
  DISCORD_CALLS,
  DISCORD_INTENTS,
  DISCORD_PERMISSIONS,
  DISCORD_SCOPES,
  discordInviteUrl,
  discordPermissions,
} from './discord-invite.js';
export {
  describeModel,
  MODEL_KINDS,
  type ModelAnswer,
  type ModelKind,
  type ModelKindInfo,
  type ProvedModel,
  proveModel,
} from './model-proof.js';
export {
  type DiscordAnswer,
  type ProvedPlatform,
  proveDiscord,
  proveSlack,
  type SlackAnswer,
} from './platform-proofs.js';
export {
  addModel,
  addOwners,
  addPlatform,
  createSetupPlan,
  type SetupEdit,
  type SetupPlan,
  writeSetup,
} from './setup-plan.js';
export type { SetupRefusal } from './setup-refusal.js';
export {
  createSlackManifest,
  PLACEHOLDER_URL,
  type SlackManifest,
  type SlackManifestOptions,
  type SlackMode,
  slackManifestYaml,
} from './slack-manifest.js';
export { SLACK_BOT_EVENTS, SLACK_METHOD_SCOPES } from './slack-scopes.js';
