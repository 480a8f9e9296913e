import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { type AccessPolicy, requireOwner } from '../../http/index.js';
import type { SubagentNode } from '../contracts.js';

/** The most characters a steer may hold (the `subagents` tool's limit, `MAX_STEER_MESSAGE_CHARS`). */
export const MAX_STEER_MESSAGE_LENGTH = 4000;
/** The sub-agent tree stops here: deeper children are counted, not listed. */
export const MAX_TREE_DEPTH = 5;

/** A kill or steer answered as `/subagents` answers it: a text, or an error naming what is wrong. */
export type SubagentActionAnswer = { status: 'ok'; text: string } | { status: 'error'; error: string };

/** What the sub-agent routes ask of the session actions port (`SessionActionsPort`). */
export interface SubagentActions {
  /** Something for a known session (its delivery route); undefined for an unknown one. */
  route(key: string): Promise<unknown>;
  /** The children the session spawned (and theirs), most recently started first. */
  tree(key: string): Promise<SubagentNode[]>;
  /** The same sub-agent action (`SubagentManager.act`) as `/subagents`, with the session as the caller. */
  act(
    key: string,
    input: { action: 'kill' | 'steer'; target: string; message?: string | undefined },
  ): Promise<SubagentActionAnswer>;
}

export const KeyParams = Type.Object(
  { key: Type.String({ minLength: 1, description: 'The session key.' }) },
  { additionalProperties: false },
);
const ActionParams = Type.Object(
  {
    key: Type.String({ minLength: 1, description: 'The session key (the parent of the sub-agent).' }),
    action: Type.Union([Type.Literal('kill'), Type.Literal('steer')], { description: 'kill or steer.' }),
  },
  { additionalProperties: false },
);
const ActionBody = Type.Object(
  {
    target: Type.String({
      minLength: 1,
      maxLength: 500,
      description: 'As `/subagents` takes it: a number, a label, a run id (prefix), or all (kill).',
    }),
    message: Type.Optional(
      Type.String({ minLength: 1, maxLength: MAX_STEER_MESSAGE_LENGTH, description: 'The steer.' }),
    ),
  },
  { additionalProperties: false },
);

export const unknownSession = (reply: FastifyReply, key: string) =>
  reply.code(404).send({ error: 'not_found', message: `unknown session: ${key}` });

/** A session's sub-agent tree, kill and steer (the same action as `/subagents`): owner-only. */
export function registerSubagentActionRoutes(
  app: FastifyInstance,
  options: { actions: SubagentActions; access: AccessPolicy },
): void {
  const { actions, access } = options;
  app.get<{ Params: Static<typeof KeyParams> }>(
    '/api/sessions/:key/subagents/tree',
    { schema: { params: KeyParams } },
    async (request, reply) => {
      if (!requireOwner(request, reply, access)) return reply;
      const { key } = request.params;
      if (!(await actions.route(key))) return unknownSession(reply, key);
      return { key, children: await actions.tree(key) };
    },
  );
  app.post<{ Params: Static<typeof ActionParams>; Body: Static<typeof ActionBody> }>(
    '/api/sessions/:key/subagents/:action',
    { schema: { params: ActionParams, body: ActionBody } },
    async (request, reply) => {
      if (!requireOwner(request, reply, access)) return reply;
      const { key, action } = request.params;
      const { target, message } = request.body;
      if (action === 'steer' && message === undefined)
        return reply
          .code(400)
          .send({ error: 'bad_request', field: 'message', message: 'message: is required to steer' });
      if (!(await actions.route(key))) return unknownSession(reply, key);
      const answer = await actions.act(key, { action, target, message });
      if (answer.status === 'ok') return { text: answer.text };
      // `/subagents` answers its refusals as text; here they are a 400 naming the field they concern.
      const field = /message/i.test(answer.error) ? 'message' : 'target';
      return reply.code(400).send({ error: 'bad_request', field, message: `${field}: ${answer.error}` });
    },
  );
}
