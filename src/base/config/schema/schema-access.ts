import { Type } from '@sinclair/typebox';
import { AGENT_EDITABLE_KEYWORD, Strict, StringEnum, TOOL_PROTECTED_KEYWORD } from './schema-helpers.js';
import { BudgetLimitSchema } from './schema-operations.js';

/**
 * `roles` and `people`: who may do what (docs/roles.md). The rules that apply them (the built-in
 * roles, resolving a sender to a person and a role, the `can` check) live in `src/base/access`;
 * here is only the shape of the file.
 */

/** The roles every gateway has; `owner` has everything and cannot be configured. */
export const BUILTIN_ROLE_NAMES = ['owner', 'operator', 'member', 'viewer'] as const;

/** A role name or a person id: lowercase letters, digits, `_`, `-`. */
export const ROLE_NAME_PATTERN = '^[a-z0-9][a-z0-9_-]{0,63}$';
export const PERSON_ID_PATTERN = '^[a-z0-9][a-z0-9_.-]{0,63}$';
/** A platform identity: `slack:U…`, `discord:<id>`, `webchat:<user>`. */
export const SENDER_ID_PATTERN = '^(webchat|slack|discord):.+$';

/** Each list item may start with `!`: it takes away what the other items give (it wins). */
const NOT = '!?';
const TOOL_NAME = '[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*';
const RISK = '(read|write|network|exec|control-plane|messaging)';
const ACTION = '[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*(\\.\\*)?';

const rule = (pattern: string, description: string) =>
  Type.Optional(
    Type.Array(Type.String({ pattern: `^${NOT}(${pattern})$` }), { uniqueItems: true, description }),
  );

export const RoleSchema = Strict(
  {
    description: Type.Optional(Type.String({ description: 'What the role is for, shown on /whoami.' })),
    tools: rule(
      `\\*|${TOOL_NAME}(\\.\\*)?|risk:${RISK}|${TOOL_NAME}:${ACTION}`,
      "Tools the role's turns may see and call: `*` (every tool but the owner-only ones, `shell.exec` and `gateway`, which must be named), a name, `namespace.*`, `risk:<class>` (every tool carrying it), or `tool:action` for one action of a tool with actions (`gateway:restart`, `gateway:config.*`). `!` in front takes away. The agent's own `tools` list applies too.",
    ),
    agents: rule(
      '\\*|[a-z0-9][a-z0-9_-]{0,63}',
      'Agents the role may chat with: ids or `*`; `!` in front takes away.',
    ),
    commands: rule(
      '\\*|[a-z][a-z0-9-]{0,31}',
      'Chat commands the role may run, without the slash: names or `*` (every command but the owner-only ones, which must be named); `!` in front takes away.',
    ),
    pages: rule(
      '\\*|chat|sessions|session|approvals|tools|schedules|logs|config|health|people',
      'Control-UI pages shown to the role: `chat`, `sessions`, `session`, `approvals`, `tools`, `schedules`, `logs`, `config`, `health`, `people` or `*`; `!` in front takes away.',
    ),
    routes: rule(
      '\\*|(\\*|GET|POST|PUT|PATCH|DELETE) /[^\\s]*',
      "HTTP API routes the role may call, as `METHOD /path` with the route's `:params` (`GET /api/sessions/:key`); `*` for any method, a path ending in `*` for everything under it, `*` alone for every route; `!` in front takes away.",
    ),
    sees: Type.Optional(
      StringEnum(['own', 'everyone'] as const, {
        description:
          "Whose sessions, transcripts and usage the role reads: the person's `own`, or `everyone`'s.",
      }),
    ),
    budget: Type.Optional({
      ...BudgetLimitSchema,
      description:
        "Each person's daily limit (all their identities count as one): a `budgets.users` entry of one of their identities wins over it, and it wins over `budgets.users['*']`. Owners are exempt while `budgets.ownersExempt`.",
    }),
  },
  {
    description:
      'A role: what its people may do. For a built-in name (`operator`, `member`, `viewer`) each given field replaces the built-in one.',
  },
);

export const RolesSchema = Type.Record(Type.String(), RoleSchema, {
  propertyNames: { pattern: ROLE_NAME_PATTERN },
  default: {},
  description:
    'Roles by name, beside the built-in `owner` (everything), `operator` (everything but the config), `member` (chat with the agents the role names) and `viewer` (read the control UI). See docs/roles.md.',
  // Who may do what is never the model's to change.
  [TOOL_PROTECTED_KEYWORD]: true,
  [AGENT_EDITABLE_KEYWORD]: false,
});

export const PersonSchema = Strict(
  {
    role: Type.String({
      pattern: ROLE_NAME_PATTERN,
      description: 'The role: `owner`, `operator`, `member`, `viewer` or a key of `roles`.',
    }),
    identities: Type.Array(
      Type.String({ pattern: SENDER_ID_PATTERN, description: 'A platform identity of this person.' }),
      {
        default: [],
        uniqueItems: true,
        description:
          "The person's platform identities (`slack:U0123`, `discord:<id>`, `webchat:<user>`): a message from any of them is this person's.",
      },
    ),
    displayName: Type.Optional(Type.String({ minLength: 1, description: 'Name shown for this person.' })),
  },
  { description: 'A person: one role, however many platform identities.' },
);

export const PeopleSchema = Type.Record(Type.String(), PersonSchema, {
  propertyNames: { pattern: PERSON_ID_PATTERN },
  default: {},
  description:
    'People by id (lowercase letters, digits, `_`, `.`, `-`). A sender listed in `owners` and in no person is an owner; any other sender the channels let in is a `member`.',
  [TOOL_PROTECTED_KEYWORD]: true,
  [AGENT_EDITABLE_KEYWORD]: false,
});
