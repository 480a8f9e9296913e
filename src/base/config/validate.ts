import type { ValidateFunction } from 'ajv';
import { type ConfigIssue, fail, ok, type Result } from '../errors/index.js';
import { dedupeIssues, describeSchemaError } from '../validation/index.js';
import { loadConfigValidator } from './config-validator.js';
import type { Config } from './schema/schema.js';
import { BUILTIN_ROLE_NAMES, SENDER_ID_PATTERN } from './schema/schema-access.js';

/**
 * Validates a parsed config against the schema, filling in defaults (the input is not
 * modified), then checks the references between sections. Fails with every issue found, each
 * naming a JSON pointer.
 */
export function validateConfig(value: unknown): Result<Config, ConfigIssue[]> {
  const validate = compiledValidator();
  const candidate = structuredClone(value ?? {});
  if (!validate(candidate)) {
    const errors = (validate.errors ?? []).filter((error) => error.keyword !== 'propertyNames');
    return fail(dedupeIssues(errors.map(describeSchemaError)));
  }
  const issues = checkReferences(candidate);
  return issues.length > 0 ? fail(issues) : ok(candidate);
}

/**
 * The validator made once per process (else on every start, restart and config edit): the build's
 * generated code, or the schema compiled (`config-validator.ts`). It is a function of a constant
 * schema, so caching it is safe.
 */
let compiled: ValidateFunction<Config> | undefined;
function compiledValidator(): ValidateFunction<Config> {
  compiled ??= loadConfigValidator();
  return compiled;
}

function checkReferences(config: Config): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const agentIds = Object.keys(config.agents);
  if (!(config.defaultAgent in config.agents)) {
    issues.push({
      path: '/defaultAgent',
      message: `names agent "${config.defaultAgent}", which is not in agents (have: ${agentIds.join(', ') || 'none'})`,
    });
  }
  for (const [id, agent] of Object.entries(config.agents)) {
    const models = agent.model === undefined ? [] : [agent.model].flat();
    models.forEach((model, index) => {
      if (model in config.models) return;
      const path = Array.isArray(agent.model) ? `/agents/${id}/model/${index}` : `/agents/${id}/model`;
      issues.push({ path, message: unknownModel(config, model) });
    });
    if (agent.systemPrompt !== undefined && agent.systemPromptFile !== undefined) {
      issues.push({
        path: `/agents/${id}/systemPromptFile`,
        message: 'set either systemPrompt or systemPromptFile, not both',
      });
    }
  }
  for (const [name, model] of Object.entries(config.models)) {
    (model.fallbacks ?? []).forEach((fallback, index) => {
      const path = `/models/${name}/fallbacks/${index}`;
      if (fallback === name) issues.push({ path, message: 'names the model itself' });
      else if (!(fallback in config.models)) issues.push({ path, message: unknownModel(config, fallback) });
    });
  }
  const coordinator = config.communication.coordinatorAgent;
  if (coordinator !== undefined && !(coordinator in config.agents)) {
    issues.push({
      path: '/communication/coordinatorAgent',
      message: `names agent "${coordinator}", which is not in agents`,
    });
  }
  config.subagents.allowAgents.forEach((agentId, index) => {
    if (agentId !== '*' && !(agentId in config.agents)) {
      issues.push({
        path: `/subagents/allowAgents/${index}`,
        message: `names agent "${agentId}", which is not in agents`,
      });
    }
  });
  config.bindings.forEach((binding, index) => {
    if (!(binding.agent in config.agents)) {
      issues.push({
        path: `/bindings/${index}/agent`,
        message: `names agent "${binding.agent}", which is not in agents`,
      });
    }
  });
  // Each Slack mode needs its own credential; without it the adapter could not even be built.
  const slack = config.channels.slack;
  if (slack?.mode === 'socket' && slack.appToken === undefined) {
    issues.push({
      path: '/channels/slack/appToken',
      message:
        'is required in socket mode (the app-level token, xapp-…); or set mode to "http" with signingSecret',
    });
  }
  if (slack?.mode === 'http' && slack.signingSecret === undefined) {
    issues.push({
      path: '/channels/slack/signingSecret',
      message: "is required in http mode (the app's signing secret)",
    });
  }
  issues.push(...checkUserTokens(config), ...checkBudgets(config), ...checkMcpServers(config));
  issues.push(...checkSenderIds(config), ...checkPeople(config));
  return issues;
}

/**
 * `people` and `roles` refer to each other and to `owners`: a person's role must exist, an identity
 * is one person's, `owners` may not list an identity whose person has another role, `owner` is
 * built in, and an agent's `runtimeAs` names a person or a sender id.
 */
function checkPeople(config: Config): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const roles = new Set<string>([...BUILTIN_ROLE_NAMES, ...Object.keys(config.roles)]);
  if ('owner' in config.roles)
    issues.push({ path: '/roles/owner', message: 'owner is built in (it may do everything): remove it' });
  const personOf = new Map<string, string>();
  for (const [id, person] of Object.entries(config.people)) {
    if (!roles.has(person.role))
      issues.push({
        path: `/people/${id}/role`,
        message: `names role "${person.role}", which is neither built in nor in roles (have: ${[...roles].join(', ')})`,
      });
    person.identities.forEach((identity, index) => {
      const other = personOf.get(identity);
      if (other !== undefined)
        issues.push({
          path: `/people/${id}/identities/${index}`,
          message: `"${identity}" is already an identity of person ${other}: an identity is one person's`,
        });
      else personOf.set(identity, id);
    });
  }
  config.owners.forEach((owner, index) => {
    const person = personOf.get(owner);
    const role = person === undefined ? undefined : config.people[person]?.role;
    if (role !== undefined && role !== 'owner')
      issues.push({
        path: `/owners/${index}`,
        message: `"${owner}" is an identity of person ${person}, whose role is ${role}: set people.${person}.role to owner or remove it from owners`,
      });
  });
  (config.approvals.approvers ?? []).forEach((approver, index) => {
    const role = approver.startsWith('role:') ? approver.slice('role:'.length) : undefined;
    if (role !== undefined && !roles.has(role))
      issues.push({
        path: `/approvals/approvers/${index}`,
        message: `names role "${role}", which is neither built in nor in roles (have: ${[...roles].join(', ')})`,
      });
  });
  const sender = new RegExp(SENDER_ID_PATTERN);
  for (const [id, agent] of Object.entries(config.agents)) {
    const as = agent.runtimeAs;
    if (as !== undefined && !sender.test(as) && !(as in config.people) && !as.startsWith('system:'))
      issues.push({
        path: `/agents/${id}/runtimeAs`,
        message: `"${as}" is neither a person (a key of people) nor a sender id (slack:U…, discord:<id>, webchat:<user>)`,
      });
  }
  return issues;
}

/** Characters that make a sender id a pattern: ids are compared exactly, so `slack:*` would name nobody. */
const PATTERN_CHARACTERS = /[*?[\]{}]/;

/**
 * `owners` and `approvals.approvers` hold exact sender ids: a pattern there (`slack:*`) is taken
 * as one literal id, so it is refused, naming the item, rather than accepted and silently useless.
 */
function checkSenderIds(config: Config): ConfigIssue[] {
  const lists = [
    { pointer: '/owners', ids: config.owners },
    { pointer: '/approvals/approvers', ids: config.approvals.approvers ?? [] },
  ];
  return lists.flatMap(({ pointer, ids }) =>
    ids.flatMap((id, index) =>
      PATTERN_CHARACTERS.test(id)
        ? [
            {
              path: `${pointer}/${index}`,
              message: `"${id}" is a pattern, but ${pointer.slice(1).replace('/', '.')} holds exact sender ids: list each person's exact sender id (slack:U…, discord:<id>, webchat:<user>)`,
            },
          ]
        : [],
    ),
  );
}

/** A budget day needs a zone Intl knows; a budget of an agent that does not exist would never apply. */
function checkBudgets(config: Config): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const { timeZone } = config.budgets;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
  } catch {
    issues.push({
      path: '/budgets/timeZone',
      message: `"${timeZone}" is not a time zone (use an IANA name such as UTC or Europe/Berlin)`,
    });
  }
  for (const agentId of Object.keys(config.budgets.agents)) {
    if (!(agentId in config.agents))
      issues.push({
        path: `/budgets/agents/${agentId}`,
        message: `names agent "${agentId}", which is not in agents`,
      });
  }
  return issues;
}

function unknownModel(config: Config, model: string): string {
  return `names model "${model}", which is not in models (have: ${Object.keys(config.models).join(', ') || 'none'})`;
}

/**
 * Each sign-in token names one identity: a user sharing another's token (or the gateway's) would
 * sign in as someone else. The issue names the other field, never the token.
 */
function checkUserTokens(config: Config): ConfigIssue[] {
  const seen = new Map<string, string>();
  if (config.http.token !== undefined) seen.set(config.http.token, 'http.token');
  const issues: ConfigIssue[] = [];
  for (const [name, user] of Object.entries(config.http.users)) {
    const other = seen.get(user.token);
    if (other !== undefined)
      issues.push({
        path: `/http/users/${name}/token`,
        message: `is the same as ${other}: each needs its own`,
      });
    else seen.set(user.token, `http.users.${name}.token`);
  }
  return issues;
}

/** Each MCP server is reached one way: a command the gateway starts, or a URL. */
function checkMcpServers(config: Config): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const [name, server] of Object.entries(config.mcp.servers)) {
    const path = `/mcp/servers/${name}`;
    if ((server.command === undefined) === (server.url === undefined)) {
      issues.push({ path, message: 'needs exactly one of `command` (stdio) or `url` (streamable HTTP)' });
    }
    if (server.url !== undefined && !/^https?:\/\//.test(server.url)) {
      issues.push({ path: `${path}/url`, message: 'must be an http:// or https:// URL' });
    }
  }
  return issues;
}
