import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Result } from '../../../base/errors/index.js';
import type { DeliveryRoute } from '../../../base/messages/index.js';
import { type AccessPolicy, identityOf, NO_QUERY, requireOwner, senderIdOf } from '../../http/index.js';
import type { PeopleActionAnswer, PeopleView } from '../contracts.js';

/** Where an owner's People-page edit's note goes after the restart: their web chat session. */
export interface PeoplePlace {
  sessionKey: string;
  route: DeliveryRoute;
}

/** What the People page's routes need: the people and pairing requests, and the owner's actions on them. */
export interface PeoplePort {
  view(): Promise<PeopleView>;
  /** Takes `identity` out of person `personId` (a config edit as `by`). */
  unlink(personId: string, identity: string, by: string, place: PeoplePlace): Promise<Result<string>>;
  /** Approves a pairing request with `role` (a config edit as `by`). */
  approve(code: string, role: string | undefined, by: string, place: PeoplePlace): Promise<Result<string>>;
  /** Turns a pairing request down; false when no such request waits. */
  deny(code: string): Promise<boolean>;
}

const Unlink = Type.Object(
  {
    identity: Type.String({
      pattern: '^(webchat|slack|discord):.+$',
      description: 'The platform identity to take out of the person (`slack:U0123`).',
    }),
  },
  { additionalProperties: false },
);

const Decision = Type.Object(
  {
    decision: Type.Union([Type.Literal('approve'), Type.Literal('deny')], {
      description: 'Let the sender in (a new person) or turn the request down.',
    }),
    role: Type.Optional(
      Type.String({
        pattern: '^[a-z0-9][a-z0-9_-]{0,63}$',
        description: 'The new person’s role (default `member`).',
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * The People page's API, owner-only (403 naming the sender before anything is read):
 * `GET /api/people`, `POST /api/people/:person/unlink { identity }` and
 * `POST /api/people/pairing/:code { decision, role? }`. Every change is a config edit through the
 * editor (audited with its diff, applied by a restart); a refused one is a 400 with why (a wrong,
 * expired or used pairing code alike); denying a request that does not wait is a 404.
 */
export function registerPeopleRoutes(
  app: FastifyInstance,
  options: { people: PeoplePort; access: AccessPolicy; noteSession(user: string): PeoplePlace },
): void {
  const { people, access } = options;
  const actor = (request: Parameters<typeof identityOf>[0]) => {
    const identity = identityOf(request);
    return { by: senderIdOf(identity), place: options.noteSession(identity.user) };
  };

  app.get('/api/people', { schema: { querystring: NO_QUERY } }, async (request, reply) => {
    if (!requireOwner(request, reply, access)) return reply;
    return people.view();
  });

  app.post<{ Params: { person: string }; Body: { identity: string } }>(
    '/api/people/:person/unlink',
    { schema: { querystring: NO_QUERY, body: Unlink } },
    async (request, reply) => {
      if (!requireOwner(request, reply, access)) return reply;
      const { by, place } = actor(request);
      const done = await people.unlink(request.params.person, request.body.identity, by, place);
      if (!done.ok) return reply.code(400).send({ error: 'refused', message: done.error });
      return { text: done.value } satisfies PeopleActionAnswer;
    },
  );

  app.post<{ Params: { code: string }; Body: { decision: 'approve' | 'deny'; role?: string } }>(
    '/api/people/pairing/:code',
    { schema: { querystring: NO_QUERY, body: Decision } },
    async (request, reply) => {
      if (!requireOwner(request, reply, access)) return reply;
      const { code } = request.params;
      if (request.body.decision === 'deny') {
        if (!(await people.deny(code)))
          return reply
            .code(404)
            .send({ error: 'not-found', message: `no pairing request ${code} is waiting` });
        return { text: 'Pairing request turned down.' } satisfies PeopleActionAnswer;
      }
      const { by, place } = actor(request);
      const done = await people.approve(code, request.body.role, by, place);
      if (!done.ok) return reply.code(400).send({ error: 'refused', message: done.error });
      return { text: done.value } satisfies PeopleActionAnswer;
    },
  );
}
