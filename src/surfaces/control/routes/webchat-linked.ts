import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Result } from '../../../base/errors/index.js';
import { identityOf, NO_QUERY, senderIdOf } from '../../http/index.js';
import type { LinkedSessionList, LinkedSessionView, WebchatHistoryPage } from '../contracts.js';
import { PAGE_QUERY, pageOf } from './webchat-history.js';

/**
 * Why a linked-session request is refused: the session is unknown or not a Slack or Discord
 * direct chat (404), or it is not the caller's person's (403, the message naming who, the role
 * and the rule).
 */
export interface LinkedRefusal {
  status: 403 | 404 | 409;
  message: string;
}

/** A message typed in the web chat into a linked session, answered when its turn ends. */
export interface LinkedAnswer {
  sessionKey: string;
  replies: { id: string; text: string }[];
}

/** What the linked-session routes need; the gateway reads its sessions, people and router. */
export interface LinkedSessionsPort {
  /** The linked sessions of the sender's person, most recently active first; none for a sender no person lists. */
  list(senderId: string): Promise<LinkedSessionView[]>;
  /** The session `key` when it is one of the sender's person's linked sessions; else why not. */
  check(senderId: string, key: string): Promise<Result<true, LinkedRefusal>>;
  /** A page of the session's messages, as the web chat's history reads a thread. */
  history(key: string, read: { last: number; before?: number }): Promise<WebchatHistoryPage>;
  /** `text` from the sender's web chat into the session, through the router; resolves when its turn ends. */
  continue(
    key: string,
    input: { text: string; senderId: string },
  ): Promise<Result<LinkedAnswer, LinkedRefusal>>;
}

const SessionQuery = {
  key: Type.String({ minLength: 1, maxLength: 1024, description: 'The linked session’s key.' }),
};

const HistoryQuery = Type.Object({ ...SessionQuery, ...PAGE_QUERY }, { additionalProperties: false });

/**
 * The web chat's linked sessions, the signed-in person's Slack and Discord direct chats (their
 * identities, `people.<id>.identities`): `GET /api/webchat/linked` lists them,
 * `GET /api/webchat/linked/history?key&last&before` reads one as the chat reads a thread, and
 * `POST /api/webchat/linked/messages { key, text }` continues it (the same session, agent and
 * route: the answer goes to the platform chat too, and comes back here when the turn ends).
 * Another person's session is a 403 naming the rule; an unknown one a 404.
 */
export function registerLinkedSessionRoutes(
  app: FastifyInstance,
  options: { linked: LinkedSessionsPort; maxMessageLength: number },
): void {
  const { linked } = options;
  const refuse = (reply: FastifyReply, refusal: LinkedRefusal) =>
    reply.code(refusal.status).send({ error: refusal.status === 403 ? 'forbidden' : 'refused', ...refusal });

  app.get(
    '/api/webchat/linked',
    { schema: { querystring: NO_QUERY } },
    async (request): Promise<LinkedSessionList> => ({
      sessions: await linked.list(senderIdOf(identityOf(request))),
    }),
  );

  app.get<{ Querystring: Static<typeof HistoryQuery> }>(
    '/api/webchat/linked/history',
    { schema: { querystring: HistoryQuery } },
    async (request, reply) => {
      const { key } = request.query;
      const read = pageOf(request.query);
      if ('error' in read) return reply.code(400).send(read);
      const checked = await linked.check(senderIdOf(identityOf(request)), key);
      if (!checked.ok) return refuse(reply, checked.error);
      return linked.history(key, read);
    },
  );

  const MessageBody = Type.Object(
    {
      ...SessionQuery,
      text: Type.String({ minLength: 1, maxLength: options.maxMessageLength, description: 'The message.' }),
    },
    { additionalProperties: false },
  );
  app.post<{ Body: Static<typeof MessageBody> }>(
    '/api/webchat/linked/messages',
    { schema: { querystring: NO_QUERY, body: MessageBody } },
    async (request, reply) => {
      const { key, text } = request.body;
      const senderId = senderIdOf(identityOf(request));
      const checked = await linked.check(senderId, key);
      if (!checked.ok) return refuse(reply, checked.error);
      const answered = await linked.continue(key, { text, senderId });
      if (!answered.ok) return refuse(reply, answered.error);
      return answered.value;
    },
  );
}
