import { Type } from '@sinclair/typebox';
import {
  AGENT_EDITABLE_KEYWORD,
  Secret,
  Strict,
  StringEnum,
  TOOL_PROTECTED_KEYWORD,
} from './schema-helpers.js';

/**
 * Link previews of the bot's posts, off by default: a preview is the platform fetching a URL the
 * model wrote, a zero-click leak of whatever the URL carries. Never the model's to change.
 */
const LINK_PREVIEWS = Type.Optional(
  Strict(
    {
      allowHosts: Type.Array(Type.String({ minLength: 1, pattern: '^[A-Za-z0-9.-]+$' }), {
        default: [],
        description:
          'Host names (exact, e.g. `docs.example.com`) whose links may be previewed: a post keeps previews (Slack unfurls, Discord embeds) only when every link in it is on this list; otherwise they are off.',
      }),
    },
    {
      description:
        "Link previews of the bot's posts. Without this (the default) every post goes out with previews off.",
      [AGENT_EDITABLE_KEYWORD]: false,
    },
  ),
);

/** Who a chat platform's bot hears: the same keys for Slack and Discord. */
const CHANNEL_ACCESS = {
  requireMention: Type.Boolean({
    default: true,
    description: 'In channels, answer only when mentioned (or in a thread the bot takes part in).',
  }),
  channels: Type.Record(
    Type.String(),
    Strict(
      {
        requireMention: Type.Optional(
          Type.Boolean({ description: 'Overrides `requireMention` in this channel.' }),
        ),
        linkPreviews: Type.Optional(
          Strict(
            {
              allowHosts: Type.Array(Type.String({ minLength: 1, pattern: '^[A-Za-z0-9.-]+$' }), {
                default: [],
                description:
                  'Host names (exact) whose links may be previewed in this channel; replaces the platform-wide `linkPreviews` here.',
              }),
            },
            {
              description:
                "Link previews of the bot's posts in this channel (replaces the platform's setting).",
              [AGENT_EDITABLE_KEYWORD]: false,
            },
          ),
        ),
      },
      { description: 'Settings for one channel.' },
    ),
    {
      default: {},
      description: 'Channels by platform id; when any are listed, only those are heard.',
    },
  ),
  dmPolicy: StringEnum(['allowlist', 'open', 'disabled'] as const, {
    default: 'allowlist',
    description:
      'Direct messages: only from `allowFrom` (allowlist), from anyone (open), or none (disabled).',
  }),
  allowFrom: Type.Array(Type.String({ minLength: 1 }), {
    default: [],
    description: 'Platform user ids whose direct messages are heard with `dmPolicy: allowlist`.',
  }),
  // Optional in the type (the default is applied on load), so configs built in code need not name it.
  pairing: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        'With `dmPolicy: allowlist`: a direct message from a sender neither `allowFrom` nor `people` lists gets a pairing code and nothing else (no model reply); an owner lets them in with `/pair approve <code> [role]` or on the People page (docs/identity.md).',
    }),
  ),
  allowBots: Type.Boolean({
    default: false,
    description: "Hear other bots' messages (the bot's own are never heard).",
  }),
  maxBotTurns: Type.Integer({
    minimum: 1,
    default: 3,
    description:
      'With `allowBots`: how many turns in a row other bots may start in one thread (or channel) before the bot stops answering bots there; a person writing there starts the count again.',
  }),
  linkPreviews: LINK_PREVIEWS,
  liveness: Type.Optional(
    Strict(
      {
        deafAfterMs: Type.Integer({
          minimum: 0,
          maximum: 86_400_000,
          default: 180_000,
          description:
            'Nothing arrived on the connection for this long: the platform is asked whether others posted where the bot listens; a message it shows at two checks in a row that never arrived makes the connection deaf, and it is opened again (0: never checked).',
        }),
        checkIntervalMs: Type.Integer({
          minimum: 100,
          maximum: 3_600_000,
          default: 30_000,
          description:
            'How often that is checked while nothing arrives (one history read per listened channel, at most 20).',
        }),
      },
      {
        default: {},
        description:
          'Inbound liveness of a connection that says "connected" (Slack Socket Mode, the Discord gateway): a deaf one is found and opened again.',
      },
    ),
  ),
  stream: Type.Optional(
    Type.Boolean({
      default: true,
      description:
        "Show a reply while it is written: a placeholder message edited as the text streams (within the platform's rate limits), tool activity as a short status line; `false` posts each reply once it is complete.",
    }),
  ),
  reconnect: Strict(
    {
      initialDelayMs: Type.Integer({
        minimum: 10,
        default: 1000,
        description: 'Wait before the first retry; each failed attempt doubles it (with jitter).',
      }),
      maxDelayMs: Type.Integer({
        minimum: 10,
        default: 300_000,
        description: 'The longest wait between two attempts.',
      }),
      refusedDelayMs: Type.Integer({
        minimum: 10,
        default: 1_800_000,
        description:
          'Wait between attempts while the platform refuses the token (a config problem; retried slowly in case the refusal was the outage).',
      }),
    },
    {
      default: {},
      description:
        'How a channel that could not connect (the platform down or unreachable) is retried until it connects.',
    },
  ),
};

/**
 * How much of a thread the bot reads when it is first mentioned there (Slack and Discord).
 * Optional in the type (the default is applied on load), so configs built in code need not name it.
 */
const THREAD_HISTORY_LIMIT = Type.Optional(
  Type.Integer({
    minimum: 0,
    maximum: 100,
    default: 20,
    description:
      "When the bot is first mentioned in a thread it was not in: how many of the thread's earlier messages it reads once, as context (0: none).",
  }),
);

/** `channels`: the web chat, Slack and Discord. */
export const ChannelsSchema = Strict(
  {
    webchat: Strict(
      {
        enabled: Type.Boolean({
          default: true,
          description: 'Serve the built-in web chat and its API.',
          [TOOL_PROTECTED_KEYWORD]: true,
        }),
      },
      { default: {}, description: 'The built-in web chat.' },
    ),
    slack: Type.Optional(
      Strict(
        {
          mode: StringEnum(['socket', 'http'] as const, {
            default: 'socket',
            description:
              '`socket` (Socket Mode, needs `appToken`) or `http` (Events API, needs `signingSecret`).',
          }),
          botToken: Secret({ minLength: 1, description: 'The bot token (`xoxb-…`).' }),
          appToken: Type.Optional(
            Secret({ minLength: 1, description: 'The app-level token for Socket Mode (`xapp-…`).' }),
          ),
          signingSecret: Type.Optional(
            Secret({
              minLength: 1,
              description: 'The signing secret that HTTP-mode requests are checked with.',
            }),
          ),
          apiUrl: Type.Optional(
            Type.String({
              format: 'uri',
              description: "Web API base URL (default Slack's); for proxies and tests.",
            }),
          ),
          slashCommand: Type.Optional(
            Type.String({
              pattern: '^/[a-z0-9_-]{1,31}$',
              description:
                'The slash command of the Slack app (default `/switchboard`): `/switchboard status` runs `/status`.',
            }),
          ),
          pongTimeoutMs: Type.Optional(
            Type.Integer({
              minimum: 1000,
              maximum: 120_000,
              default: 15_000,
              description:
                "Socket Mode: how long the connection may go without answering the client's ping before it is dropped and opened again (Slack's own default, 5000, turns a short stall of the process or the network into a reconnect).",
            }),
          ),
          ...CHANNEL_ACCESS,
          threadHistoryLimit: THREAD_HISTORY_LIMIT,
        },
        // Adding or removing a channel: the model may neither connect a bot nor cut the owner off.
        { description: 'Slack, through @slack/bolt.', [TOOL_PROTECTED_KEYWORD]: 'presence' },
      ),
    ),
    discord: Type.Optional(
      Strict(
        {
          token: Secret({ minLength: 1, description: 'The bot token.' }),
          apiBase: Type.Optional(
            Type.String({
              format: 'uri',
              description: "REST base URL (default Discord's); for proxies and tests.",
            }),
          ),
          guilds: Type.Array(Type.String({ minLength: 1 }), {
            default: [],
            description: 'Guild ids the bot listens in; empty: every guild it is in.',
          }),
          ...CHANNEL_ACCESS,
          threadHistoryLimit: THREAD_HISTORY_LIMIT,
        },
        { description: 'Discord, through discord.js v14.', [TOOL_PROTECTED_KEYWORD]: 'presence' },
      ),
    ),
  },
  { default: {}, description: 'Chat channels.', [AGENT_EDITABLE_KEYWORD]: false },
);
