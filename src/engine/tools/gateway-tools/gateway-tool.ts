import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from '../../../base/config/index.js';
import { fail, type Result } from '../../../base/errors/index.js';
import type { Tool, ToolContext } from '../types.js';
import { editRequest, missingInput, reviewGatewayCall } from './gateway-tool-review.js';

/** What the tool returns to the model: the action's payload as `result`, or why it was refused. */
type GatewayToolOutput = { ok: true; result: unknown } | { ok: false; error: string };

const GatewayParameters = Type.Object(
  {
    action: StringEnum(
      [
        'config.get',
        'config.schema.lookup',
        'config.patch',
        'config.apply',
        'restart',
        'update.check',
        'update.run',
        'update.status',
      ] as const,
      {
        description:
          'config.get: the config and its hash; config.schema.lookup: what a config path accepts; config.patch: merge a partial change; config.apply: replace the whole config; restart: restart the gateway; update.check: fetch the configured update source and list what is new; update.run: update to it (proved first, switched, watched, rolled back by itself; the outcome is posted to this chat); update.status: the last update run.',
      },
    ),
    path: Type.Optional(
      Type.String({
        description:
          'config.schema.lookup: dot path into the config, `[n]` for array items (e.g. `agents.main.tools`, `bindings[0].match`); empty for the top.',
      }),
    ),
    raw: Type.Optional(
      Type.String({
        description:
          'config.patch: a JSON object merged into the config (null deletes a key; an array holding items with an `id`, like tools.toolpacks, merges: items with a known id merge into it, the rest are added, nothing is dropped; other arrays replace). config.apply: the whole new config as JSON. Keep secret placeholders as config.get showed them.',
      }),
    ),
    replacePaths: Type.Optional(
      Type.Array(Type.String(), {
        maxItems: 50,
        description:
          'config.patch / config.apply: dot paths (`agents.main.tools`, `models.old`; "" for everything) where you mean to remove something. An edit that would remove a key or drop an array item is refused unless its path, or one above it, is listed here; at a listed path a patch array replaces the array whole (the only way to remove a toolpack entry). The result lists what was removed in removedPaths.',
      }),
    ),
    baseHash: Type.Optional(
      Type.String({ description: 'config.patch / config.apply: the `hash` from your latest config.get.' }),
    ),
    note: Type.Optional(
      Type.String({
        maxLength: 2000,
        description:
          'What you changed and why, in words for the user: posted to this chat after the restart.',
      }),
    ),
    reason: Type.Optional(
      Type.String({ maxLength: 200, description: 'restart: why the gateway restarts (for the log).' }),
    ),
    delayMs: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 60000,
        description: 'restart: wait this long first (default 2000).',
      }),
    ),
    restartDelayMs: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 60000,
        description:
          'config.patch / config.apply: wait this long before the restart that applies the change (default 2000).',
      }),
    ),
    sessionKey: Type.Optional(
      Type.String({ minLength: 1, description: 'The session whose chat gets the note; default: this one.' }),
    ),
    target: Type.Optional(
      Type.String({
        minLength: 4,
        maxLength: 100,
        pattern: '^[A-Za-z0-9._/-]+$',
        description:
          'update.run: a commit or tag of the configured source to update to instead of its head; only to retry a version that rolled back when an owner named it. The source itself is config (update.source), never an argument.',
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * The owner-only gateway tool: read and change the config, restart. Every result is
 * `{ ok: true, result }` or `{ ok: false, error }`, never an exception for an expected refusal.
 */
export const gatewayTool: Tool<typeof GatewayParameters> = {
  name: 'gateway',
  risk: ['read', 'control-plane'],
  description:
    'Inspect and change the gateway config, or restart the gateway (owners only). Before editing, call config.get for the current hash and config.schema.lookup with the exact dot path you will change. Prefer config.patch (a partial change); use config.apply only to replace the whole config. Both validate the change, write it and restart the gateway (unless commands.restart is false: then the result says restartNeeded). You may change only what config.schema.lookup marks `x-agent-editable: true` (on the path or an object above it: agents’ displayName, model, systemPrompt and skills; a model’s model id and tuning; routes; session.queueMode; agentLoop.failoverNotice) and the paths an owner listed in `agentEditable`; never owners, secrets, URLs (`format: uri`: where secrets are sent), paths marked `x-tool-protected`, local or shell toolpacks, or new `${ENV}` references. For anything else ask an owner (the Config page or /config). Always pass `note`: it is posted to the chat after the restart. update.check lists what the configured source has that this gateway does not; update.run updates to it (the new version is built and tried on a copy while this one serves, then switched, watched and rolled back by itself if it fails; the outcome is posted to this chat, do not wait for it); update.status reads the last run.',
  parameters: GatewayParameters,
  ownerOnly: true,
  // A role may have some actions and not others: the operator restarts but does not touch the config.
  actionOf: (input) => input.action,
  review: reviewGatewayCall,
  async execute(input, context): Promise<GatewayToolOutput> {
    return toModelJson(await runAction(input, context));
  },
};

function toModelJson(outcome: Result<unknown>): GatewayToolOutput {
  return outcome.ok ? { ok: true, result: outcome.value } : { ok: false, error: outcome.error };
}

async function runAction(
  input: Static<typeof GatewayParameters>,
  context: ToolContext,
): Promise<Result<unknown>> {
  const gateway = context.services.gateway;
  const sessionKey = input.sessionKey ?? context.sessionKey;
  // The caller's own session may have no record yet; its route is known here.
  const route = input.sessionKey === undefined ? context.route : undefined;
  switch (input.action) {
    case 'config.get':
      return gateway.configGet();
    case 'config.schema.lookup':
      return gateway.schemaLookup(input.path ?? '');
    case 'config.patch':
    case 'config.apply': {
      const request = editRequest(input, context);
      if (request === undefined) return fail(missingInput(input));
      return gateway.configEdit(input.action, request);
    }
    case 'update.check':
    case 'update.run':
    case 'update.status':
      return runUpdateAction(input, context, route);
    case 'restart':
      return gateway.restart({
        delayMs: input.delayMs,
        reason: input.reason,
        note: input.note,
        sessionKey,
        route,
        actor: context.senderId,
      });
  }
}

/** The update actions (src/update through `GatewayControl.update`): each answer's `text` is for the chat. */
async function runUpdateAction(
  input: Static<typeof GatewayParameters>,
  context: ToolContext,
  route: ToolContext['route'] | undefined,
): Promise<Result<unknown>> {
  const update = context.services.gateway.update;
  if (update === undefined) return fail('updates are not available in this gateway');
  if (input.action === 'update.check') return update.check();
  if (input.action === 'update.status') return update.status();
  return update.run({
    by: context.senderId,
    sessionKey: input.sessionKey ?? context.sessionKey,
    route: input.sessionKey === undefined ? route : undefined,
    target: input.target,
  });
}
