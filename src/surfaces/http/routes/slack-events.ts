import type { RequestListener } from 'node:http';
import type { FastifyInstance } from 'fastify';

export const SLACK_EVENTS_PATH = '/slack/events';

/** How far Slack's request timestamp may be from our clock, either way (Slack's own advice). */
export const SLACK_TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

/**
 * `POST /slack/events`: Slack's Events API in HTTP mode. Public, because Slack sends no bearer
 * token: the signing secret is the check, made by Bolt's listener over the exact bytes Slack
 * signed. So the body is kept as bytes here, never parsed, and handed over with the request.
 * Bolt refuses timestamps older than 5 minutes only; one further ahead than that (a request
 * signed for later and replayed then) is refused here first, before Bolt sees it.
 */
export function registerSlackEventsRoute(app: FastifyInstance, listener: RequestListener): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.post(SLACK_EVENTS_PATH, { config: { public: true, platformSigned: true } }, (request, reply) => {
      const problem = timestampProblem(request.headers['x-slack-request-timestamp'], Date.now());
      if (problem !== undefined) {
        request.log.info({ path: SLACK_EVENTS_PATH }, `slack event refused: ${problem}`);
        return reply.code(401).send({ error: 'unauthorized', message: problem });
      }
      // Bolt takes an already read body from `rawBody` (its BufferedIncomingMessage).
      const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      Object.assign(request.raw, { rawBody });
      reply.hijack();
      listener(request.raw, reply.raw);
    });
  });
}

/** Why the `X-Slack-Request-Timestamp` header (whole seconds) is refused, or undefined. */
function timestampProblem(header: string | string[] | undefined, nowMs: number): string | undefined {
  if (typeof header !== 'string' || !/^\d{1,12}$/.test(header)) {
    return 'X-Slack-Request-Timestamp is missing or not whole seconds';
  }
  const skew = Number(header) - Math.floor(nowMs / 1000);
  if (Math.abs(skew) <= SLACK_TIMESTAMP_TOLERANCE_SECONDS) return undefined;
  const when = skew > 0 ? 'ahead of' : 'behind';
  return `X-Slack-Request-Timestamp is ${Math.abs(skew)} s ${when} this server's clock (at most ${SLACK_TIMESTAMP_TOLERANCE_SECONDS} s either way)`;
}
