import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DispatchResult } from '../../../base/messages/index.js';
import { startEventStream } from '../event-stream.js';
import { identityOf } from '../identity.js';
import { registerWebchatFileRoute, type WebchatFilesPort } from './webchat-files.js';

const NAME = '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$';
/** The most characters one web chat message may hold; the control UI refuses longer ones before sending. */
export const MAX_MESSAGE_LENGTH = 32_000;

const MessageBody = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: MAX_MESSAGE_LENGTH, description: 'The message.' }),
    user: Type.Optional(
      Type.String({ pattern: NAME, description: 'User name; the sender is `webchat:<user>`.' }),
    ),
    thread: Type.Optional(Type.String({ pattern: NAME, description: 'Thread id within the user’s chat.' })),
  },
  { additionalProperties: false },
);

const ActionBody = Type.Object(
  {
    // 100: the most a button value may hold (Discord's custom_id limit, `ReplyAction.value`).
    action: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'The clicked button’s value, unchanged.',
    }),
    user: Type.Optional(
      Type.String({ pattern: NAME, description: 'User name; the sender is `webchat:<user>`.' }),
    ),
    thread: Type.Optional(Type.String({ pattern: NAME, description: 'Thread of the clicked reply.' })),
    reply: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_.:-]{1,100}$',
        description: 'Id of the clicked reply: its buttons are replaced on the user’s other pages.',
      }),
    ),
  },
  { additionalProperties: false },
);

const EventsQuery = Type.Object(
  { user: Type.Optional(Type.String({ pattern: NAME, description: 'Whose replies to stream.' })) },
  { additionalProperties: false },
);

/** What the web chat's event stream carries: `closing` ends the stream, every other event is sent as is. */
export interface WebchatStreamEvent {
  readonly type: string;
}

/**
 * What the web chat routes need of the web chat channel. Declared here (http may not import
 * channels): the gateway passes the web chat adapter itself.
 */
export interface WebchatPort extends Partial<WebchatFilesPort> {
  /** Takes a message from the API; resolves when its turn has ended. */
  receive(input: { text: string; user: string; thread?: string | undefined }): Promise<DispatchResult>;
  /** Takes a button click from the API; resolves with the router's answer to it. */
  receiveClick(input: {
    action: string;
    user: string;
    thread?: string | undefined;
    reply?: string | undefined;
  }): Promise<DispatchResult>;
  /** Streams what is sent to `user`'s chats until the returned function is called. */
  subscribe(user: string, listener: (event: WebchatStreamEvent) => void): () => void;
}

export interface WebchatRoutesOptions {
  webchat: WebchatPort;
}

/** The web chat: the message and click API and the reply event stream (server-sent events). */
export function registerWebchatRoutes(app: FastifyInstance, options: WebchatRoutesOptions): void {
  const { webchat } = options;

  app.post<{ Body: Static<typeof MessageBody> }>(
    '/api/webchat/messages',
    { schema: { body: MessageBody } },
    async (request, reply) => {
      const { text, thread } = request.body;
      const user = chatUserOf(request, reply, request.body.user);
      if (user === undefined) return reply;
      const result = await webchat.receive({ text, user, thread });
      return { sessionKey: result.sessionKey, replies: result.replies.map(replyOf) };
    },
  );

  // A click: answered at once by the router (never a turn); `text` replaces the clicked buttons.
  app.post<{ Body: Static<typeof ActionBody> }>(
    '/api/webchat/action',
    { schema: { body: ActionBody } },
    async (request, response) => {
      const { action, thread, reply } = request.body;
      const user = chatUserOf(request, response, request.body.user);
      if (user === undefined) return response;
      const result = await webchat.receiveClick({ action, user, thread, reply });
      const answer = result.replies[0];
      return { text: answer?.text ?? '', ...(answer?.actions?.length ? { actions: answer.actions } : {}) };
    },
  );

  registerEventsRoute(app, webchat);
  const { readFile } = webchat;
  if (readFile) registerWebchatFileRoute(app, { readFile: (id, name) => readFile.call(webchat, id, name) });
}

/**
 * The web chat user a request acts as. A user's token is that user: naming another is 403 (naming
 * both). The gateway token (the operator; API clients) may name any user, and is `local` without.
 */
export function chatUserOf(
  request: FastifyRequest,
  reply: FastifyReply,
  named: string | undefined,
): string | undefined {
  const identity = identityOf(request);
  if (identity.operator || named === undefined || named === identity.user) return named ?? identity.user;
  void reply.code(403).send({
    error: 'forbidden',
    message: `signed in as webchat:${identity.user}, which may not act as webchat:${named} (only the gateway token may name another user)`,
  });
  return undefined;
}

function replyOf({ id, text, actions, origin }: DispatchResult['replies'][number]) {
  return { id, text, ...(actions?.length ? { actions } : {}), ...(origin ? { origin } : {}) };
}

function registerEventsRoute(app: FastifyInstance, webchat: WebchatPort): void {
  app.get<{ Querystring: Static<typeof EventsQuery> }>(
    '/api/webchat/events',
    { schema: { querystring: EventsQuery } },
    (request, reply) => {
      const user = chatUserOf(request, reply, request.query.user);
      if (user === undefined) return;
      startEventStream(reply, {
        ready: { user },
        // `closing` (the gateway stops or restarts) ends the stream; the page reconnects.
        subscribe: (stream) =>
          webchat.subscribe(user, (event) => {
            if (event.type === 'closing') stream.end();
            else stream.send(event.type, event);
          }),
      });
    },
  );
}
