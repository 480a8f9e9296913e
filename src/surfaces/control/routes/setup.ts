import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Result } from '../../../base/errors/index.js';
import type { DeliveryRoute } from '../../../base/messages/index.js';
import { type AccessPolicy, identityOf, NO_QUERY, requireOwner, senderIdOf } from '../../http/index.js';
import { type SetupAnswer, SetupBody, type SetupView } from '../contracts.js';
import { sendRefusal } from './config-refusal.js';

/** Who runs the setup and where its restart note goes (the owner's own web chat session). */
export interface SetupRequest {
  actor: string;
  sessionKey: string;
  route: DeliveryRoute;
}

/** A refusal of the setup: the field to fix, or an editor's refusal (a stale hash, a start check). */
export type SetupFailure = { field: string; message: string } | string;

/** The Setup page's side of the gateway (`first-run.ts`): what is configured, and a setup run. */
export interface SetupPort {
  view(): Promise<Result<SetupView>>;
  run(body: SetupBody, request: SetupRequest): Promise<Result<Omit<SetupAnswer, 'note'>, SetupFailure>>;
}

export interface SetupRoutesOptions {
  setup: SetupPort;
  access: AccessPolicy;
  noteSession(user: string): { sessionKey: string; route: DeliveryRoute };
}

/**
 * `GET /api/config/setup` and `POST /api/config/setup`, owner-only (under `/api/config`, so the
 * roles that may not touch the config may not run it either). A refused answer is a 400 naming
 * its field (`model.apiKey`); nothing is written then. No answer carries a secret.
 */
export function registerSetupRoutes(app: FastifyInstance, options: SetupRoutesOptions): void {
  const { setup } = options;
  void app.register(async (scope) => {
    scope.addHook('preValidation', async (request, reply) => {
      if (!requireOwner(request, reply, options.access)) return reply;
    });
    scope.get('/api/config/setup', { schema: { querystring: NO_QUERY } }, async (_request, reply) => {
      const view = await setup.view();
      return view.ok ? view.value : sendRefusal(reply, view.error);
    });
    scope.post<{ Body: Static<typeof SetupBody> }>(
      '/api/config/setup',
      { schema: { querystring: NO_QUERY, body: SetupBody } },
      async (request, reply): Promise<SetupAnswer | undefined> => {
        const identity = identityOf(request);
        const place = options.noteSession(identity.user);
        const since = new Date().toISOString();
        const result = await setup.run(request.body, { actor: senderIdOf(identity), ...place });
        if (result.ok) return { ...result.value, note: { sessionKey: place.sessionKey, since } };
        const { error } = result;
        if (typeof error === 'string') return sendRefusal(reply, error);
        return reply.code(400).send({ error: 'refused', field: error.field, message: error.message });
      },
    );
  });
}
