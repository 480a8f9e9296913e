import type { FastifyInstance } from 'fastify';

export function registerHealthRoutes(app: FastifyInstance): void {
  app.get('/healthz', { config: { public: true } }, async () => ({ status: 'ok' }));
  // Browsers ask for it on every page; an empty answer keeps their consoles free of 404s.
  app.get('/favicon.ico', { config: { public: true } }, async (_request, reply) => reply.code(204).send());
}
