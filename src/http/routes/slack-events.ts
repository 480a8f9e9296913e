import type { RequestListener } from 'node:http';
import type { FastifyInstance } from 'fastify';

export const SLACK_EVENTS_PATH = '/slack/events';

/**
 * `POST /slack/events`: Slack's Events API in HTTP mode. Public, because Slack sends no bearer
 * token: the signing secret is the check, made by Bolt's listener over the exact bytes Slack
 * signed. So the body is kept as bytes here, never parsed, and handed over with the request.
 */
export function registerSlackEventsRoute(app: FastifyInstance, listener: RequestListener): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.post(SLACK_EVENTS_PATH, { config: { public: true, platformSigned: true } }, (request, reply) => {
      // Bolt takes an already read body from `rawBody` (its BufferedIncomingMessage).
      const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      Object.assign(request.raw, { rawBody });
      reply.hijack();
      listener(request.raw, reply.raw);
    });
  });
}
