import { stringify } from 'yaml';
import { printProblem } from './output.js';
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

/** `switchboard slack manifest`: the manifest as YAML on stdout, problems on stderr. */
export function runSlackManifest(options: {
  mode?: string;
  name?: string;
  command?: string;
  url?: string;
}): void {
  const mode = options.mode ?? 'socket';
  if (mode !== 'socket' && mode !== 'http') {
    printProblem(`--mode must be socket or http, not ${JSON.stringify(mode)}`);
    return;
  }
  const name = options.name ?? 'Switchboard';
  if (name.trim() === '' || name.length > 35) {
    printProblem(
      `--name must be 1 to 35 characters (Slack's limit for an app name), not ${JSON.stringify(name)}`,
    );
    return;
  }
  const command = options.command ?? '/switchboard';
  if (!/^\/[a-z0-9_-]{1,31}$/.test(command)) {
    printProblem(
      `--command must be a / and up to 31 lower-case letters, digits, - or _, not ${JSON.stringify(command)}`,
    );
    return;
  }
  if (options.url !== undefined && !/^https:\/\/[^/\s]+/.test(options.url)) {
    printProblem(`--url must be the gateway's public https:// address, not ${JSON.stringify(options.url)}`);
    return;
  }
  if (mode === 'http' && options.url === undefined)
    process.stderr.write(
      `No --url: the request URLs say ${PLACEHOLDER_URL}; put your gateway's address there.\n`,
    );
  const manifest = createSlackManifest({ mode, name, command, ...(options.url && { url: options.url }) });
  process.stdout.write(stringify(manifest, { lineWidth: 0 }));
}
