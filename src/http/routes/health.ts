import type { FastifyInstance } from 'fastify';

export function registerHealthRoutes(app: FastifyInstance): void {
  app.get('/healthz', { config: { public: true } }, async () => ({ status: 'ok' }));
}
