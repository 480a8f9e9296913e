import { type Static, Type } from '@sinclair/typebox';
import { AgentApprovalsSchema, ApprovalsSchema, TOOL_PATTERN } from './schema-approvals.js';
import { ChannelsSchema } from './schema-channels.js';
import {
  AGENT_EDITABLE_KEYWORD,
  AGENT_ID_PATTERN,
  SECRET_KEYWORD,
  Secret,
  Strict,
  StringEnum,
  TOOL_PROTECTED_KEYWORD,
} from './schema-helpers.js';

/** Decided for the model's gateway tool: it may change this (`true`) or not (`false`); see agent-editable.ts. */
const EDITABLE = { [AGENT_EDITABLE_KEYWORD]: true } as const;
const NOT_EDITABLE = { [AGENT_EDITABLE_KEYWORD]: false } as const;

import {
  PeopleSchema,
  type PersonSchema,
  type RoleSchema,
  RolesSchema,
  SENDER_ID_PATTERN,
} from './schema-access.js';
import { LogSchema } from './schema-log.js';
import { McpSchema, type McpServerSchema } from './schema-mcp.js';
import {
  BudgetsSchema,
  ContextSchema,
  MetricsSchema,
  ModelContextTokensSchema,
  ModelFallbacksSchema,
  ModelPriceSchema,
} from './schema-operations.js';
import { CommunicationSchema, SchedulerSchema } from './schema-scheduler.js';
import { ToolsSchema } from './schema-tools.js';
import { UpdateSchema } from './schema-update.js';

/**
 * The config schema: the single source of truth. It validates the file (ajv), generates
 * `config/gateway.schema.json` and marks secret fields. Every object rejects unknown keys.
 * Keys not set in the file take the defaults given here.
 */

const NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$';
/** A web chat user name: the web chat API's `user` pattern (routes/webchat.ts), without `local`. */
const WEBCHAT_USER_PATTERN = '^(?!local$)[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$';
/** A tool name, `namespace.*` or `*`. */

export const ModelConfigSchema = Strict(
  {
    provider: StringEnum(['openai', 'anthropic'] as const, {
      description: 'API family: `openai` (any OpenAI-compatible server) or `anthropic`.',
    }),
    model: Type.String({
      minLength: 1,
      description: 'Model id sent to the provider, e.g. `gpt-4o-mini`.',
      ...EDITABLE,
    }),
    baseUrl: Type.Optional(
      Type.String({
        format: 'uri',
        description: 'API base URL (Ollama, vLLM, LM Studio, OpenRouter, proxies).',
      }),
    ),
    apiKey: Type.Optional(Secret({ description: 'API key; use `${ENV_NAME}` to keep it out of the file.' })),
    maxTokens: Type.Optional(
      Type.Integer({ minimum: 1, description: 'Upper bound on tokens per reply.', ...EDITABLE }),
    ),
    temperature: Type.Optional(
      Type.Number({ minimum: 0, maximum: 2, description: 'Sampling temperature.', ...EDITABLE }),
    ),
    stream: Type.Boolean({
      default: true,
      description: 'Stream replies as they are written; turn off for servers that cannot stream tool calls.',
      ...EDITABLE,
    }),
    images: Type.Optional(
      Type.Boolean({
        description:
          "The model takes images (default true): an image posted in a chat is sent to it as an image part. false: it gets the file's workspace path only.",
        ...EDITABLE,
      }),
    ),
    maxRetries: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 10,
        description:
          'Retries after a 429, a 5xx or a network error, with backoff and jitter, before the call fails (or fails over): default 2, or 1 when a fallback model follows.',
        ...EDITABLE,
      }),
    ),
    timeoutMs: Type.Integer({
      minimum: 1000,
      maximum: 3600000,
      default: 120000,
      description: 'How long one model request may take before it counts as failed (and is retried).',
      ...EDITABLE,
    }),
    fallbacks: Type.Optional(ModelFallbacksSchema),
    contextTokens: Type.Optional(ModelContextTokensSchema),
    price: Type.Optional(ModelPriceSchema),
  },
  { description: 'A model an agent can use.' },
);

export const AgentConfigSchema = Strict(
  {
    displayName: Type.Optional(
      Type.String({ minLength: 1, description: 'Name shown in chat and status.', ...EDITABLE }),
    ),
    runtimeAs: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "Who this agent's runtime turns (woken by signals, schedules and announcements) run as: a person (a key of `people`) or a sender id (`slack:U0123`); they get that principal's role (docs/roles.md). With an owner, owner-only tools are offered and a risky call in such a turn asks nobody unless the approvals policy says `ask` (a Suzumio-style project). Without it, runtime turns run as `system:signals`, a `member`: no owner-only tools, risky calls ask an approver.",
      }),
    ),
    model: Type.Optional(
      Type.Union(
        [
          Type.String({ minLength: 1 }),
          Type.Array(Type.String({ minLength: 1 }), { minItems: 1, uniqueItems: true }),
        ],
        {
          description:
            'Name of an entry in `models`, or a list of them: the first answers, the others are its fallbacks in order (instead of the first model’s own `fallbacks`). Without it the agent cannot answer.',
          ...EDITABLE,
        },
      ),
    ),
    systemPrompt: Type.Optional(
      Type.String({
        description:
          'Instructions for the model. Switchboard adds who the agent is, where it is and which tools it has.',
        ...EDITABLE,
      }),
    ),
    systemPromptFile: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'File with the instructions (instead of `systemPrompt`), relative to the config file.',
        // Any file it names goes into the prompt: a model could read the config file or the token.
        [TOOL_PROTECTED_KEYWORD]: true,
      }),
    ),
    persona: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'A persona file (YAML frontmatter `id`, `name`, `description`, `tools`, `model`, `skills`, then the Markdown instructions), relative to the config file. The entry’s own fields win over the persona’s.',
        // Like systemPromptFile: any file it names goes into the prompt.
        [TOOL_PROTECTED_KEYWORD]: true,
      }),
    ),
    skills: Type.Optional(
      Type.Array(Type.String({ pattern: AGENT_ID_PATTERN }), {
        uniqueItems: true,
        description:
          'Names of the skills this agent gets (listed in its prompt, loadable with `skills.load`); without it, all skills.',
        ...EDITABLE,
      }),
    ),
    workspace: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'The directory file tools and toolpack runners work in (`/workspace`); default `<stateDir>/workspaces/<agentId>`. Relative to the config file.',
        // File tools read and write everything under it: pointed at the state dir they reach the token.
        [TOOL_PROTECTED_KEYWORD]: true,
      }),
    ),
    tools: Type.Array(Type.String({ pattern: TOOL_PATTERN }), {
      default: ['*'],
      description:
        'Tools the agent may see and run: exact names, namespace wildcards (`schedule.*`) or `*` for all. Owner-only tools still need an owner turn.',
    }),
    approvals: AgentApprovalsSchema,
    announce: Type.Optional(
      Type.Boolean({
        description:
          "When this agent runs as a sub-agent: whether its end is announced back into the session that spawned it (a turn there); default true. `false`: not announced (its result stays in `subagents` list). A spawn's own `announce` argument wins.",
      }),
    ),
    resume: Type.Optional(
      StringEnum(['safe', 'off'] as const, {
        description:
          "A turn of this agent (or a sub-agent run of it) that a crash or SIGKILL cut short: `safe` (default) resumes it at the next start from its transcript (tool calls left without a result are repeated only when restart-safe, the model is told the others' outcome is unknown); `off` ends it with a message in its chat instead.",
        ...NOT_EDITABLE,
      }),
    ),
  },
  { description: 'An agent: who answers in the sessions routed to it.' },
);

export const BindingSchema = Strict(
  {
    agent: Type.String({ pattern: AGENT_ID_PATTERN, description: 'Agent id (a key of `agents`).' }),
    match: Strict(
      {
        channel: StringEnum(['webchat', 'slack', 'discord'] as const, {
          description: 'Channel the message came from.',
        }),
        chatType: Type.Optional(
          StringEnum(['direct', 'channel'] as const, { description: 'Direct message or channel message.' }),
        ),
        chatId: Type.Optional(
          Type.String({
            minLength: 1,
            description: 'Platform channel id, or for direct messages the user id (web chat: the user name).',
          }),
        ),
        teamId: Type.Optional(Type.String({ minLength: 1, description: 'Slack team (workspace) id.' })),
        guildId: Type.Optional(Type.String({ minLength: 1, description: 'Discord guild (server) id.' })),
      },
      { description: 'Which messages this binding applies to; every given field must match.' },
    ),
  },
  { description: 'Routes matching messages to an agent. The most specific match wins, then `defaultAgent`.' },
);

export const ConfigSchema = Strict(
  {
    $schema: Type.Optional(
      Type.String({ description: 'Path or URL of this JSON schema, for editors.', ...NOT_EDITABLE }),
    ),
    stateDir: Type.String({
      minLength: 1,
      default: './data',
      description:
        'Directory for the store, the HTTP token, logs and other state; relative to the working directory.',
      // Pointed elsewhere, the gateway restarts on empty state.
      ...NOT_EDITABLE,
    }),
    log: LogSchema,
    http: Strict(
      {
        host: Type.String({
          minLength: 1,
          default: '127.0.0.1',
          description: 'Address the HTTP server binds.',
        }),
        port: Type.Integer({
          minimum: 0,
          maximum: 65535,
          default: 8787,
          description: 'HTTP port; 0 picks a free one.',
        }),
        trustProxy: Type.Boolean({
          default: false,
          description:
            'Trust X-Forwarded-* from a TLS-terminating proxy in front, so the sign-in cookie is marked Secure.',
        }),
        token: Type.Optional(
          Secret({
            minLength: 16,
            description:
              'Bearer token for the API and web chat. When absent one is generated on first start and kept in `<stateDir>/http-token` (mode 0600).',
          }),
        ),
        users: Type.Record(
          Type.String(),
          Strict(
            {
              token: Secret({
                minLength: 16,
                description:
                  'This user’s token (at least 16 characters; use `${ENV_NAME}` to keep it out of the file). It signs in to the control UI and the API as `webchat:<name>`, and may not act as another web chat user.',
              }),
            },
            { description: 'A named web chat user.' },
          ),
          {
            propertyNames: { pattern: WEBCHAT_USER_PATTERN },
            default: {},
            description:
              'Named users of the control UI and web chat, by user name (letters, digits, `_`, `.`, `-`; not `local`, which is the gateway token’s). Each signs in with its own token as `webchat:<name>`; the gateway token signs in as `webchat:local`, the operator, who may also name any user in the web chat API.',
          },
        ),
      },
      {
        default: {},
        description: 'The HTTP server: health, API and web chat.',
        [TOOL_PROTECTED_KEYWORD]: true,
        ...NOT_EDITABLE,
      },
    ),
    store: Strict(
      {
        url: Type.Optional(
          Type.String({
            pattern: '^(sqlite|memory|redis|rediss)://',
            description:
              'Where sessions and transcripts live: `sqlite://<file>`, `memory://` (lost on restart) or `redis://host:port` (`redis://:password@host:port` or `redis://user:password@host:port` for a server with a password; URL-encode `:`, `@` and `/` in it). Secret: shown redacted, never logged. Default: SQLite in `<stateDir>/switchboard.sqlite`.',
            // Where every transcript is written, with a Redis password when it has one.
            [TOOL_PROTECTED_KEYWORD]: true,
            [SECRET_KEYWORD]: true,
          }),
        ),
      },
      { default: {}, description: 'Durable storage.', ...NOT_EDITABLE },
    ),
    owners: Type.Array(Type.String({ pattern: SENDER_ID_PATTERN, description: 'An owner sender id.' }), {
      default: ['webchat:local'],
      uniqueItems: true,
      description:
        'Sender ids (`webchat:<user>`, `slack:<U…>`, `discord:<id>`) whose messages start owner turns and may run owner commands.',
      [TOOL_PROTECTED_KEYWORD]: true,
      ...NOT_EDITABLE,
    }),
    roles: RolesSchema,
    people: PeopleSchema,
    defaultAgent: Type.String({
      pattern: AGENT_ID_PATTERN,
      default: 'main',
      description: 'Agent for messages no binding matches.',
      ...NOT_EDITABLE,
    }),
    agents: Type.Record(Type.String(), AgentConfigSchema, {
      propertyNames: { pattern: AGENT_ID_PATTERN },
      default: { main: {} },
      description: 'Agents by id (lowercase letters, digits, `_`, `-`).',
      // Only the fields marked EDITABLE in AgentConfigSchema (its tools, files and approvals are not).
      ...NOT_EDITABLE,
    }),
    models: Type.Record(Type.String(), ModelConfigSchema, {
      propertyNames: { pattern: NAME_PATTERN },
      default: {},
      description: 'Models by name; `agents.<id>.model` refers to one.',
      // Only the fields marked EDITABLE in ModelConfigSchema (not the provider, URL, key or price).
      ...NOT_EDITABLE,
    }),
    personas: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'A folder of persona files (`*.md`, each with an `id`), relative to the config file: each is the agent of its `id`, as if `agents.<id>.persona` named it. An `agents.<id>` entry of that id adds to it and wins, field by field.',
        // Any file in it goes into a prompt, like agents.<id>.persona.
        [TOOL_PROTECTED_KEYWORD]: true,
        ...NOT_EDITABLE,
      }),
    ),
    tools: ToolsSchema,
    mcp: McpSchema,
    skills: Strict(
      {
        dirs: Type.Array(Type.String({ minLength: 1 }), {
          default: ['skills'],
          description:
            'Folders of skills (each skill a folder with a SKILL.md), relative to the config file; rescanned at each start and restart. A missing `skills` folder is no skills; a missing folder you name is reported.',
          [TOOL_PROTECTED_KEYWORD]: true,
        }),
      },
      {
        default: {},
        description: 'Skills: SKILL.md folders whose names and descriptions go into agents’ prompts.',
        ...NOT_EDITABLE,
      },
    ),
    bindings: Type.Array(BindingSchema, {
      default: [],
      description: 'Which agent answers where.',
      ...NOT_EDITABLE,
    }),
    channels: ChannelsSchema,
    session: Strict(
      {
        queueMode: StringEnum(['collect', 'followup', 'steer', 'interrupt'] as const, {
          default: 'collect',
          description:
            "Messages arriving during a turn: `collect` combines them into the next turn (owners' and others' never in one), `followup` runs one turn each, `steer` shows them to the model before its next call in the running turn, `interrupt` stops the running turn and answers them (a user's message only; signals and announcements wait).",
          ...EDITABLE,
        }),
        maxConcurrentTurns: Type.Integer({
          minimum: 1,
          maximum: 1024,
          default: 16,
          description: 'Turns running at once across all sessions.',
        }),
      },
      { default: {}, description: 'Sessions and their queues.', ...NOT_EDITABLE },
    ),
    agentLoop: Strict(
      {
        maxBurst: Type.Integer({
          minimum: 1,
          maximum: 1000,
          default: 12,
          description:
            'Model+tool rounds allowed in one turn (each user message and each runtime event starts its own count); past it the run stops and waits for the user.',
        }),
        runTimeoutSeconds: Type.Integer({
          minimum: 1,
          maximum: 86400,
          default: 600,
          description: 'How long one run may take before it is aborted with status `timeout`.',
        }),
        historyEntries: Type.Integer({
          minimum: 1,
          maximum: 10000,
          default: 200,
          description:
            'Transcript entries (the most recent) read for each call; the token budget (`context`) may send fewer.',
        }),
        failoverNotice: Type.Boolean({
          default: true,
          description: 'Tell the chat in one line when a fallback model answered instead of the first.',
          ...EDITABLE,
        }),
        resumeWithinMs: Type.Integer({
          minimum: 0,
          maximum: 604_800_000,
          default: 7_200_000,
          description:
            'A turn interrupted (crash, SIGKILL) longer ago than this when the gateway starts again is ended with a message in its chat instead of resumed (default 2 h).',
        }),
      },
      // Its own limits (rounds, run time) are not the model's to raise.
      { default: {}, description: 'The tool loop.', ...NOT_EDITABLE },
    ),
    routes: Type.Record(
      Type.String(),
      Type.String({
        pattern: '^(webchat|slack|discord):.+$',
        description: 'Where the route posts: `webchat:<user>`, `slack:<channel id>`, `discord:<channel id>`.',
      }),
      {
        propertyNames: { pattern: '^[#A-Za-z0-9][A-Za-z0-9_.#-]{0,63}$' },
        default: {},
        description:
          'Named chat routes toolpacks and `messages.send` post to, e.g. `"#ops": "slack:C0123"`, `"#lobby": "webchat:local"`.',
        ...EDITABLE,
      },
    ),
    communication: CommunicationSchema,
    project: Strict(
      {
        id: Type.String({
          pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$',
          default: 'default',
          description: 'The project id in toolpack contexts and the web UI API paths.',
        }),
      },
      { default: {}, description: 'The project this gateway serves.', ...NOT_EDITABLE },
    ),
    scheduler: SchedulerSchema,
    subagents: Strict(
      {
        maxSpawnDepth: Type.Integer({
          minimum: 1,
          maximum: 5,
          default: 1,
          description: 'How deep sub-agents may nest: 1 lets chat sessions spawn and sub-agents not.',
        }),
        maxChildrenPerSession: Type.Integer({
          minimum: 1,
          maximum: 100,
          default: 5,
          description: 'Active sub-agents one session may have at once.',
        }),
        maxConcurrent: Type.Integer({
          minimum: 1,
          maximum: 256,
          default: 8,
          description: 'Sub-agent runs running at once across the gateway; more wait their turn.',
        }),
        allowAgents: Type.Array(Type.String({ pattern: '^(\\*|[a-z0-9][a-z0-9_-]{0,63})$' }), {
          default: [],
          uniqueItems: true,
          description: 'Agent ids a session may spawn besides its own agent (`*` for any configured agent).',
        }),
      },
      { default: {}, description: 'Sub-agents spawned with sessions_spawn.', ...NOT_EDITABLE },
    ),
    commands: Strict(
      {
        restart: Type.Boolean({
          default: true,
          description: 'Allow owners to restart the gateway from chat.',
        }),
      },
      { default: {}, description: 'Chat commands.', [TOOL_PROTECTED_KEYWORD]: true, ...NOT_EDITABLE },
    ),
    approvals: ApprovalsSchema,
    context: ContextSchema,
    budgets: BudgetsSchema,
    metrics: MetricsSchema,
    gateway: Strict(
      {
        drainTimeoutMs: Type.Integer({
          minimum: 0,
          maximum: 600000,
          default: 10000,
          description:
            'On stop or restart, how long running turns may finish before they are aborted (their messages, and those arriving meanwhile, are answered after the next start).',
        }),
        crashLoop: Strict(
          {
            uncleanStarts: Type.Integer({
              minimum: 0,
              maximum: 100,
              default: 3,
              description:
                'Unclean starts (a start that did not reach ready, or a process that died within a minute of ready) within `windowMs` after which the next start comes up in safe mode; 0 turns the breaker off.',
            }),
            windowMs: Type.Integer({
              minimum: 1000,
              maximum: 86400000,
              default: 300000,
              description: 'How far back unclean starts count (default 5 minutes).',
            }),
          },
          {
            default: {},
            description:
              'The crash-loop breaker: when the gateway starts in safe mode (docs/operations.md, "Safe mode and /rescue").',
          },
        ),
      },
      {
        default: {},
        description: 'The gateway process: stop, restart and the crash-loop breaker.',
        ...NOT_EDITABLE,
      },
    ),
    update: UpdateSchema,
    agentEditable: Type.Array(
      Type.String({
        pattern: '^(\\*|[A-Za-z0-9_$#-]+)(\\.(\\*|[A-Za-z0-9_$#-]+))*$',
        description: 'A config dot path, `*` for any key (`agents.*.tools`, `bindings`).',
      }),
      {
        default: [],
        uniqueItems: true,
        description:
          "Config paths the model's `gateway` tool may change besides those the schema marks `x-agent-editable` (each opens the path and everything under it). Owners, secrets, URLs and other `x-tool-protected` paths stay closed to the tool whatever is listed.",
        // The list that opens the rest: never the model's.
        [TOOL_PROTECTED_KEYWORD]: true,
        ...NOT_EDITABLE,
      },
    ),
  },
  {
    title: 'Switchboard gateway config',
    description: 'Config of the Switchboard chat-ops gateway (JSONC).',
  },
);

/** A config after defaults and `${ENV}` substitution. */
export type Config = Static<typeof ConfigSchema>;
export type AgentConfig = Static<typeof AgentConfigSchema>;
export type ModelConfig = Static<typeof ModelConfigSchema>;
export type McpServerConfig = Static<typeof McpServerSchema>;
export type BudgetsConfig = Static<typeof BudgetsSchema>;
export type ContextConfig = Static<typeof ContextSchema>;
export type LogConfig = Static<typeof LogSchema>;
export type UpdateConfig = Static<typeof UpdateSchema>;
export type Binding = Static<typeof BindingSchema>;
export type RoleConfig = Static<typeof RoleSchema>;
export type PersonConfig = Static<typeof PersonSchema>;
export type RolesConfig = Static<typeof RolesSchema>;
export type PeopleConfig = Static<typeof PeopleSchema>;
