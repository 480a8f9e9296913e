import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { DeliveryRoute } from '../../messages/index.js';
import { type AccessPolicy, identityOf, requireOwner, senderIdOf } from '../identity.js';
import type { WebchatPort } from './webchat.js';

/** The most characters a steer may hold (the `subagents` tool's limit, `MAX_STEER_MESSAGE_CHARS`). */
export const MAX_STEER_MESSAGE_LENGTH = 4000;
/** The sub-agent tree stops here: deeper children are counted, not listed. */
export const MAX_TREE_DEPTH = 5;

/** One child of a session, as the control UI's sub-agents panel shows it: its latest run and its own children. */
export interface SubagentNode {
  /** The number a target names among its parent's children (it changes as runs start and end). */
  index: number;
  runId: string;
  label: string;
  status: string;
  startedAt: number;
  runtimeMs: number;
  agentId: string;
  /** `models.<name>` the child uses. */
  model: string;
  childSessionKey: string;
  /** The session that spawned it: kill and steer it there. */
  parentSessionKey: string;
  children: SubagentNode[];
}

/** A kill or steer answered as `/subagents` answers it: a text, or an error naming what is wrong. */
export type SubagentActionAnswer = { status: 'ok'; text: string } | { status: 'error'; error: string };

/**
 * What the session action routes need; declared here (http may not import tools or channels),
 * the gateway passes the real thing (`src/gateway/session-actions.ts`).
 */
export interface SessionActionsPort {
  /** The session's delivery route; undefined for an unknown session. */
  route(key: string): Promise<DeliveryRoute | undefined>;
  /** The children the session spawned (and theirs), most recently started first. */
  tree(key: string): Promise<SubagentNode[]>;
  /** The same `runSubagentsAction` as `/subagents`, with the session as the caller. */
  act(
    key: string,
    input: { action: 'kill' | 'steer'; target: string; message?: string | undefined },
  ): Promise<SubagentActionAnswer>;
  /**
   * Posts `text` as the bot into a Slack or Discord session's thread, prefixed with `senderId`,
   * and records it in the transcript; a failed delivery is not recorded, its reason scrubbed.
   */
  post(
    key: string,
    input: { text: string; senderId: string },
  ): Promise<{ posted: true; seq: number } | { posted: false; reason: string }>;
}

export interface SessionActionsOptions {
  actions: SessionActionsPort;
  access: AccessPolicy;
  /** The web chat, when enabled: replies into web chat sessions go through its `receive`. */
  webchat?: WebchatPort | undefined;
  /** The most characters one message may hold (the web chat's limit). */
  maxMessageLength: number;
}

const KeyParams = Type.Object(
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

const unknownSession = (reply: FastifyReply, key: string) =>
  reply.code(404).send({ error: 'not_found', message: `unknown session: ${key}` });

/**
 * The control UI's actions on a session: its sub-agent tree, kill and steer (owner-only), and a
 * reply into it (`POST /api/sessions/:key/messages`, see `registerSessionMessage`).
 */
export function registerSessionActionRoutes(app: FastifyInstance, options: SessionActionsOptions): void {
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
  registerSessionMessage(app, options);
}

/**
 * `POST /api/sessions/:key/messages { text }`: into a web chat session as its own user and thread
 * (the owner's or that user's sign-in: the web chat's `receive`, resolved when the turn ends);
 * into a Slack or Discord session's thread by an owner only, as the bot, prefixed with who posted.
 */
function registerSessionMessage(app: FastifyInstance, options: SessionActionsOptions): void {
  const { actions, access, webchat } = options;
  const MessageBody = Type.Object(
    { text: Type.String({ minLength: 1, maxLength: options.maxMessageLength, description: 'The message.' }) },
    { additionalProperties: false },
  );
  app.post<{ Params: Static<typeof KeyParams>; Body: Static<typeof MessageBody> }>(
    '/api/sessions/:key/messages',
    { schema: { params: KeyParams, body: MessageBody } },
    async (request, reply) => {
      const { key } = request.params;
      const { text } = request.body;
      const identity = identityOf(request);
      const senderId = senderIdOf(identity);
      const route = await actions.route(key);
      if (!route) return unknownSession(reply, key);
      if (route.channel === 'webchat') {
        if (route.chatId !== identity.user && !requireOwner(request, reply, access)) return reply;
        if (!webchat)
          return reply.code(409).send({ error: 'conflict', message: `the web chat is not enabled: ${key}` });
        const result = await webchat.receive({ text, user: route.chatId, thread: route.threadId });
        return {
          sessionKey: result.sessionKey,
          replies: result.replies.map(({ id, text }) => ({ id, text })),
        };
      }
      if (route.channel === 'internal') {
        const message = `${key} is a sub-agent session: steer it from its parent's sub-agents panel`;
        return reply.code(409).send({ error: 'conflict', message });
      }
      if (!requireOwner(request, reply, access)) return reply;
      const posted = await actions.post(key, { text, senderId });
      if (!posted.posted) {
        const message = `${route.channel} did not take the post: ${posted.reason}`;
        return reply.code(502).send({ error: 'bad_gateway', message });
      }
      return { sessionKey: key, posted: true, seq: posted.seq };
    },
  );
}
