import { stringify } from 'yaml';
import { type SlackBotScope, type SlackEvent, slackBotEvents, slackBotScopes } from './slack-scopes.js';

export type SlackMode = 'socket' | 'http';

export interface SlackManifestOptions {
  mode: SlackMode;
  /** The app's name in Slack (and its bot user's display name). */
  name: string;
  /** The slash command, with its `/` (`channels.slack.slashCommand`). */
  command: string;
  /** HTTP mode: the gateway's public HTTPS address; Slack posts to `<url>/slack/events`. */
  url?: string;
}

/** Where HTTP mode's requests go when no `--url` is given: to be replaced in Slack's editor. */
export const PLACEHOLDER_URL = 'https://switchboard.example.com';

/** The parts of a Slack app manifest (api.slack.com/reference/manifests) the gateway fills in. */
export type SlackManifest = {
  display_information: { name: string; description: string };
  features: {
    app_home: Record<string, boolean>;
    bot_user: { display_name: string; always_online: boolean };
    slash_commands: {
      command: string;
      description: string;
      usage_hint: string;
      should_escape: boolean;
      url?: string;
    }[];
  };
  oauth_config: { scopes: { bot: SlackBotScope[] } };
  settings: {
    event_subscriptions: { request_url?: string; bot_events: SlackEvent[] };
    interactivity: { is_enabled: boolean; request_url?: string };
    org_deploy_enabled: boolean;
    socket_mode_enabled: boolean;
    token_rotation_enabled: boolean;
  };
};

/** The manifest with every scope, event, interactivity and the slash command the gateway uses. */
export function createSlackManifest(options: SlackManifestOptions): SlackManifest {
  const http = options.mode === 'http';
  const requestUrl = `${(options.url ?? PLACEHOLDER_URL).replace(/\/+$/, '')}/slack/events`;
  const where = http ? { url: requestUrl } : {};
  return {
    display_information: {
      name: options.name,
      description: 'Chat-ops gateway: talk to LLM agent sessions from Slack.',
    },
    features: {
      // The Messages tab lets people send the bot direct messages.
      app_home: {
        home_tab_enabled: false,
        messages_tab_enabled: true,
        messages_tab_read_only_enabled: false,
      },
      bot_user: { display_name: options.name, always_online: true },
      slash_commands: [
        {
          command: options.command,
          description: `Run a ${options.name} command`,
          usage_hint: 'status | help | new | stop | whoami | config get <path> | subagents …',
          should_escape: false,
          ...where,
        },
      ],
    },
    oauth_config: { scopes: { bot: slackBotScopes() } },
    settings: {
      event_subscriptions: {
        ...(http && { request_url: requestUrl }),
        bot_events: slackBotEvents(),
      },
      // Approval buttons (`block_actions`).
      interactivity: { is_enabled: true, ...(http && { request_url: requestUrl }) },
      org_deploy_enabled: false,
      socket_mode_enabled: !http,
      token_rotation_enabled: false,
    },
  };
}

/** The manifest as YAML, as Slack's "From a manifest" takes it. */
export function slackManifestYaml(options: SlackManifestOptions): string {
  return stringify(createSlackManifest(options), { lineWidth: 0 });
}
