import { Type } from '@sinclair/typebox';
import {
  AGENT_EDITABLE_KEYWORD,
  AGENT_ID_PATTERN,
  Strict,
  TOOL_PROTECTED_KEYWORD,
} from './schema-helpers.js';

/**
 * What running the gateway for weeks needs in config: what a model costs and how much context it
 * takes (beside each model), the context budget and compaction, daily budgets and the metrics
 * endpoint.
 */

/** Names of `models` entries tried after this one when it fails over (docs/agents.md, "Model failover"). */
export const ModelFallbacksSchema = Type.Array(Type.String({ minLength: 1 }), {
  uniqueItems: true,
  description:
    'Models (names in `models`) tried in order when this one is rate-limited (429), overloaded (529), answers a 5xx, times out or cannot be reached. A 400 or a content error does not fail over.',
  [AGENT_EDITABLE_KEYWORD]: true,
});

export const ModelContextTokensSchema = Type.Integer({
  minimum: 1024,
  maximum: 10_000_000,
  description:
    "The model's context window in tokens (default 128000). The history sent with each call is cut to fit it, estimated at about 4 characters a token, with room kept for the reply (`maxTokens`).",
  [AGENT_EDITABLE_KEYWORD]: true,
});

export const ModelPriceSchema = Strict(
  {
    inputPerMillion: Type.Number({ minimum: 0, description: 'Price of a million input (prompt) tokens.' }),
    outputPerMillion: Type.Number({ minimum: 0, description: 'Price of a million output (reply) tokens.' }),
  },
  {
    description:
      'What this model costs, in one currency for all models (say, US dollars): `/usage`, `/metrics` and `budgets.*.cost` count with it. Without it the model counts tokens only.',
  },
);

/** One daily limit: a new turn is refused once the day's spend reaches it. */
export const BudgetLimitSchema = Strict(
  {
    tokens: Type.Optional(
      Type.Integer({ minimum: 1, description: 'Input plus output tokens a day, across all models.' }),
    ),
    cost: Type.Optional(
      Type.Number({
        minimum: 0,
        description: 'Cost a day, in the currency of `models.<name>.price` (models without a price count 0).',
      }),
    ),
  },
  { description: 'A daily limit; at least one of `tokens` and `cost`.', minProperties: 1 },
);

export const BudgetsSchema = Strict(
  {
    timeZone: Type.String({
      minLength: 1,
      default: 'UTC',
      description: 'The IANA time zone whose midnight starts a budget day, e.g. `Europe/Berlin`.',
    }),
    ownersExempt: Type.Boolean({
      default: true,
      description: "Owners' turns are never refused for a spent budget (their spend still counts).",
    }),
    agents: Type.Record(Type.String(), BudgetLimitSchema, {
      propertyNames: { pattern: AGENT_ID_PATTERN },
      default: {},
      description: 'Daily limits per agent id: every turn of that agent counts, whoever started it.',
    }),
    users: Type.Record(Type.String(), BudgetLimitSchema, {
      propertyNames: { pattern: '^(\\*|(webchat|slack|discord):.+)$' },
      default: {},
      description:
        "Daily limits per sender id (`slack:U0123`, `webchat:alice`); an entry of any identity of a person is that person's, all their identities counted as one. Without one, the person's role's `budget`, else `*`: the limit of each user.",
    }),
  },
  {
    default: {},
    // Its own limits are not the model's to raise.
    [AGENT_EDITABLE_KEYWORD]: false,
    description:
      'Daily spending limits. When one is spent a new turn is refused with a message naming the limit and when it resets; a turn already running finishes.',
  },
);

export const ContextSchema = Strict(
  {
    compaction: Type.Boolean({
      default: true,
      description:
        'Summarize older turns into one system entry (by the session’s model) when the history passes `compactAtPercent` of the model’s context; `/compact` does it on demand either way.',
    }),
    compactAtPercent: Type.Integer({
      minimum: 10,
      maximum: 100,
      default: 80,
      description:
        "The share of the model's context (`models.<name>.contextTokens`) at which a session is compacted.",
    }),
    toolResultPercent: Type.Integer({
      minimum: 1,
      maximum: 100,
      default: 25,
      description:
        "A tool result larger than this share of the model's context is cut in what the model sees, with a marker; the transcript keeps it whole.",
    }),
  },
  {
    default: {},
    description: 'What of a session the model sees: the token budget and compaction.',
    [AGENT_EDITABLE_KEYWORD]: false,
  },
);

export const MetricsSchema = Strict(
  {
    public: Type.Boolean({
      default: false,
      description:
        '`GET /metrics` (Prometheus text) without the token, for a scraper that cannot send one. Keep the gateway on a private address then.',
    }),
  },
  {
    default: {},
    description: 'The Prometheus endpoint `GET /metrics`.',
    [TOOL_PROTECTED_KEYWORD]: true,
    [AGENT_EDITABLE_KEYWORD]: false,
  },
);
