import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { DeliveryRoute } from '../../../base/messages/index.js';
import type { WebchatPort } from '../../http/index.js';
import { type AccessPolicy, identityOf, principalOf, senderIdOf } from '../../http/index.js';
import {
  KeyParams,
  registerSubagentActionRoutes,
  type SubagentActions,
  unknownSession,
} from './session-subagents.js';

export type { SubagentActionAnswer } from './session-subagents.js';

/**
 * What the session action routes need; declared here (http may not import tools or channels),
 * the gateway passes the real thing (`src/app/session-actions.ts`).
 */
export interface SessionActionsPort extends SubagentActions {
  /** The session's delivery route; undefined for an unknown session. */
  route(key: string): Promise<DeliveryRoute | undefined>;
  /**
   * Posts `text` as the bot into the session's chat (a Slack or Discord thread, or another user's
   * web chat), prefixed with `senderId`, and records it in the transcript as a system entry; a
   * failed delivery is not recorded, its reason scrubbed.
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

/**
 * The control UI's actions on a session: its sub-agent tree, kill and steer (owner-only), and a
 * reply into it (`POST /api/sessions/:key/messages`, see `registerSessionMessage`).
 */
export function registerSessionActionRoutes(app: FastifyInstance, options: SessionActionsOptions): void {
  const { actions, access } = options;
  registerSubagentActionRoutes(app, { actions, access });
  registerSessionMessage(app, options);
}

/**
 * `POST /api/sessions/:key/messages { text }`: into the caller's own web chat session as them
 * (the web chat's `receive`, resolved when the turn ends). An owner may post into any other
 * session (another user's web chat, a Slack or Discord thread): as the bot, prefixed with the
 * owner's sender id, recorded as a system entry, never as that session's user (who may hold
 * rights the owner has not, such as approving). To anyone else, a session not theirs is the same
 * 404 as an unknown one.
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
      const own = route?.channel === 'webchat' && route.chatId === identity.user;
      // Another's session: only for a role that sees everyone's (owner, operator; a viewer never reaches here).
      const others = principalOf(identity, access).rules.sees === 'everyone';
      if (!route || (!own && !others)) return unknownSession(reply, key);
      if (own) {
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
      const posted = await actions.post(key, { text, senderId });
      if (!posted.posted) {
        const message = `${route.channel} did not take the post: ${posted.reason}`;
        return reply.code(502).send({ error: 'bad_gateway', message });
      }
      return { sessionKey: key, posted: true, seq: posted.seq };
    },
  );
}
