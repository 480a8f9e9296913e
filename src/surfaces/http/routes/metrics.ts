import type { FastifyInstance } from 'fastify';
import { NO_QUERY } from '../query-schema.js';

/** The gateway's metrics as Prometheus text (`src/engine/observability`, through the gateway). */
export interface MetricsPort {
  /** The exposition's content type (`text/plain; version=0.0.4; charset=utf-8`). */
  readonly contentType: string;
  text(): Promise<string>;
}

/**
 * `GET /metrics`: the Prometheus text exposition. It needs the token (the gateway token, or an
 * owner's) unless `metrics.public` opens it to scrapers without one; labels name channels,
 * agents, models and tools, never a session, a user or a text.
 */
export function registerMetricsRoute(
  app: FastifyInstance,
  options: { metrics: MetricsPort; public: boolean },
): void {
  app.get(
    '/metrics',
    { config: { public: options.public }, schema: { querystring: NO_QUERY } },
    async (_request, reply) => reply.type(options.metrics.contentType).send(await options.metrics.text()),
  );
}
