// The Setup page (the first run). Contracts: see ../contracts.ts.
import { type Static, Type } from '@sinclair/typebox';
import { ConfigEditOutcomeView, ConfigHash } from './config.js';

// The Setup page (the first run, `switchboard setup`'s steps): `GET` and `POST /api/config/setup`.

/** A model the first run offers, with what it would write. */
export const SetupModelKind = Type.Object({
  kind: Type.Union([Type.Literal('openai'), Type.Literal('anthropic'), Type.Literal('compatible')]),
  label: Type.String(),
  /** The model id offered. */
  model: Type.String(),
  /** The env file variable its key goes to. */
  variable: Type.String(),
  /** The address offered (an OpenAI-compatible server's). */
  baseUrl: Type.Optional(Type.String()),
});
export type SetupModelKind = Static<typeof SetupModelKind>;

/** `GET /api/config/setup`: what is configured and what each step needs; never a secret's value. */
export const SetupView = Type.Object({
  /** The config file's hash: the base of the setup's edit. */
  hash: Type.String(),
  /** The default agent has a model. */
  modelConfigured: Type.Boolean(),
  /** The configured models, one line each (`default: openai gpt-4o-mini at …`). */
  models: Type.Array(Type.Object({ name: Type.String(), text: Type.String() })),
  modelKinds: Type.Array(SetupModelKind),
  /** Slack's app manifest (Socket Mode) as YAML, to create the app from. */
  slack: Type.Object({ configured: Type.Boolean(), manifest: Type.String() }),
  discord: Type.Object({ configured: Type.Boolean() }),
  /** `owners` as the file has them (the operator first). */
  owners: Type.Array(Type.String()),
  /** The operator's sender id (`webchat:local`), always kept an owner. */
  operator: Type.String(),
  /** Where the secrets are written (mode 0600). */
  envFile: Type.String(),
  /** The setup's variables already set (in the env file or the process's environment): an empty field keeps them. */
  secretsSet: Type.Array(Type.String()),
});
export type SetupView = Static<typeof SetupView>;

const Secret = (description: string) =>
  Type.Optional(Type.String({ maxLength: 4096, description: `${description}; empty keeps the one set.` }));
const Address = (description: string) => Type.Optional(Type.String({ maxLength: 2048, description }));

/** `POST /api/config/setup`: the steps' answers; the secrets are proved, written to the env file, never answered. */
export const SetupBody = Type.Object(
  {
    baseHash: ConfigHash,
    model: Type.Union([
      Type.Object({ kind: Type.Literal('keep') }, { additionalProperties: false }),
      Type.Object(
        {
          kind: Type.Union([Type.Literal('openai'), Type.Literal('anthropic'), Type.Literal('compatible')]),
          model: Type.String({ maxLength: 200, description: 'The model id; empty for the one offered.' }),
          baseUrl: Address("An OpenAI-compatible server's base URL (`http://127.0.0.1:11434/v1`)."),
          apiKey: Secret('The API key'),
        },
        { additionalProperties: false },
      ),
    ]),
    slack: Type.Optional(
      Type.Object(
        {
          botToken: Secret('The bot token (xoxb-…)'),
          appToken: Secret('The app-level token (xapp-…, connections:write)'),
          apiUrl: Address('Another Slack Web API address; empty for slack.com.'),
        },
        { additionalProperties: false },
      ),
    ),
    discord: Type.Optional(
      Type.Object(
        {
          token: Secret('The bot token'),
          apiBase: Address('Another Discord API address; empty for discord.com.'),
        },
        { additionalProperties: false },
      ),
    ),
    /** The other owners by sender id; the operator is kept whatever this says. */
    owners: Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100 }),
  },
  { additionalProperties: false },
);
export type SetupBody = Static<typeof SetupBody>;

/** What a setup did: each proof's words, the variables written (names only), the edit and its restart. */
export const SetupAnswer = Type.Object({
  proofs: Type.Array(
    Type.Object({
      step: Type.Union([Type.Literal('model'), Type.Literal('slack'), Type.Literal('discord')]),
      text: Type.String(),
    }),
  ),
  written: Type.Array(Type.String()),
  envFile: Type.String(),
  changedPaths: Type.Array(Type.String()),
  /** Discord: where to invite the bot. */
  invite: Type.Optional(Type.String()),
  restart: ConfigEditOutcomeView.properties.restart,
  restartNeeded: Type.Optional(Type.Literal(true)),
  /** The restart note is a system entry of this session after `since`. */
  note: Type.Object({ sessionKey: Type.String(), since: Type.String() }),
});
export type SetupAnswer = Static<typeof SetupAnswer>;
