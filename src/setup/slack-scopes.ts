/**
 * What the gateway asks of Slack, from Slack's reference (api.slack.com/methods/<method>, "Required
 * scopes", bot token; api.slack.com/events/<event>). `test/unit/slack-manifest.test.ts` checks that
 * every Web API method the code calls is here and that the manifest grants its scopes.
 */

import type { webApi } from '@slack/bolt';

type Manifest = webApi.AppsManifestValidateArguments['manifest'];
/** A bot scope as @slack/web-api's manifest type knows them: a misspelt scope does not compile. */
export type SlackBotScope = NonNullable<
  NonNullable<NonNullable<Manifest['oauth_config']>['scopes']>['bot']
>[number];
/** An event as the manifest type knows them. */
export type SlackEvent = NonNullable<
  NonNullable<NonNullable<Manifest['settings']>['event_subscriptions']>['bot_events']
>[number];

/** The history scopes of every conversation type the bot is in: channels, private channels, DMs, group DMs. */
const HISTORY = ['channels:history', 'groups:history', 'im:history', 'mpim:history'] as const;

/**
 * Each Web API method the gateway calls with its bot token, and the bot scopes Slack requires for it:
 * no more (the manifest asks for these scopes only, and the test fails on a method no code calls).
 */
export const SLACK_METHOD_SCOPES: Readonly<Record<string, readonly SlackBotScope[]>> = {
  'auth.test': [],
  // Socket Mode: called with the app-level token (`connections:write`), which the manifest cannot grant.
  'apps.connections.open': [],
  'chat.postMessage': ['chat:write'],
  'chat.update': ['chat:write'],
  // A tool status line an approval request left without a reply.
  'chat.delete': ['chat:write'],
  'chat.postEphemeral': ['chat:write'],
  // A direct message to a user (an approval request, a `--notify` note).
  'conversations.open': ['im:write'],
  // A thread's earlier messages, at the bot's first mention there.
  'conversations.replies': HISTORY,
  // The liveness check: messages the Socket Mode connection should have delivered.
  'conversations.history': HISTORY,
  // Display names for the control UI (a sender's, a channel's), looked up in the background.
  'users.info': ['users:read'],
  'conversations.info': ['channels:read'],
  'reactions.add': ['reactions:write'],
  'reactions.remove': ['reactions:write'],
  // `files.uploadV2` is the client's: it calls the two methods below.
  'files.uploadV2': ['files:write'],
  'files.getUploadURLExternal': ['files:write'],
  'files.completeUploadExternal': ['files:write'],
};

/** Scopes for what is not a Web API method. */
export const SLACK_OTHER_SCOPES: Readonly<Record<string, readonly SlackBotScope[]>> = {
  // A posted file's `url_private` is downloaded with the bot token.
  'file downloads': ['files:read'],
  'the slash command': ['commands'],
};

/** The events the gateway hears (`message` in each conversation type, `app_mention`) and their scopes. */
export const SLACK_BOT_EVENTS: Readonly<Partial<Record<SlackEvent, readonly SlackBotScope[]>>> = {
  app_mention: ['app_mentions:read'],
  'message.channels': ['channels:history'],
  'message.groups': ['groups:history'],
  'message.im': ['im:history'],
  'message.mpim': ['mpim:history'],
};

/** Every bot scope the gateway needs, sorted: the methods', the events' and the others'. */
export function slackBotScopes(): SlackBotScope[] {
  const all = [SLACK_METHOD_SCOPES, SLACK_OTHER_SCOPES, SLACK_BOT_EVENTS].flatMap((table) =>
    Object.values(table).flatMap((scopes) => scopes ?? []),
  );
  return [...new Set(all)].sort();
}

/** The events of SLACK_BOT_EVENTS, in its order. */
export function slackBotEvents(): SlackEvent[] {
  return Object.keys(SLACK_BOT_EVENTS) as SlackEvent[];
}
