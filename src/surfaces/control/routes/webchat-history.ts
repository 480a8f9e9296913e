import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { identityOf, NO_QUERY } from '../../http/index.js';
import type { WebchatHistoryPage, WebchatThreadList, WebchatThreadView } from '../contracts.js';

/*
 * The web chat's history, for the chat page: the signed-in user's threads (their web chat
 * sessions) and a thread's messages from the store, paged back. The user is always the sign-in's
 * (`request.identity.user`): there is no `user` to pass, so nobody reads another user's chat here.
 */

const NAME = '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$';
/** A history page without `?last`: this many messages, at most `MAX_HISTORY_PAGE`. */
export const DEFAULT_HISTORY_PAGE = 50;
export const MAX_HISTORY_PAGE = 200;

/** A history page's query fields (`before`, `last`): this route's and the linked sessions'. */
export const PAGE_QUERY = {
  before: Type.Optional(
    Type.String({ pattern: '^[0-9]{1,16}$', description: 'Only messages below this seq (`next`).' }),
  ),
  last: Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,3}$',
      description: `At most this many messages (1–${MAX_HISTORY_PAGE}).`,
    }),
  ),
};

/** The page asked for (`last`, `before` as numbers), or the 400 answer naming `last`. */
export function pageOf(query: {
  last?: string | undefined;
  before?: string | undefined;
}): { last: number; before?: number } | { error: string; field: 'last'; message: string } {
  const last = query.last === undefined ? DEFAULT_HISTORY_PAGE : Number(query.last);
  if (last < 1 || last > MAX_HISTORY_PAGE)
    return { error: 'bad_request', field: 'last', message: `last: use 1–${MAX_HISTORY_PAGE}` };
  return { last, ...(query.before === undefined ? {} : { before: Number(query.before) }) };
}

const HistoryQuery = Type.Object(
  {
    thread: Type.Optional(Type.String({ pattern: NAME, description: 'The thread; absent: the main chat.' })),
    ...PAGE_QUERY,
  },
  { additionalProperties: false },
);

/** What the history routes need; the gateway reads the session store and the router. */
export interface WebchatHistoryPort {
  /** The user's web chat sessions, most recently active first (at most 100). */
  threads(user: string): Promise<WebchatThreadView[]>;
  /**
   * The last `last` messages below `before` of the user's session in `thread`, oldest first;
   * `next` is the `before` of the page further back, absent at the start. No session: no messages.
   */
  history(read: {
    user: string;
    thread?: string;
    last: number;
    before?: number;
  }): Promise<Omit<WebchatHistoryPage, 'thread'>>;
}

export function registerWebchatHistoryRoutes(app: FastifyInstance, history: WebchatHistoryPort): void {
  app.get(
    '/api/webchat/threads',
    { schema: { querystring: NO_QUERY } },
    async (request): Promise<WebchatThreadList> => ({
      user: identityOf(request).user,
      threads: await history.threads(identityOf(request).user),
    }),
  );

  app.get<{ Querystring: Static<typeof HistoryQuery> }>(
    '/api/webchat/history',
    { schema: { querystring: HistoryQuery } },
    async (request, reply): Promise<WebchatHistoryPage | typeof reply> => {
      const { thread } = request.query;
      const read = pageOf(request.query);
      if ('error' in read) return reply.code(400).send(read);
      const page = await history.history({
        user: identityOf(request).user,
        ...(thread === undefined ? {} : { thread }),
        ...read,
      });
      return { ...(thread === undefined ? {} : { thread }), ...page };
    },
  );
}
