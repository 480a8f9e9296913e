import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import {
  fastifyValidatorFactory,
  lazyValidators,
  type ValidatorFactory,
} from '../../src/surfaces/http/lazy-validators.js';

// The HTTP server's route schemas are compiled by each route's first request (fastify's own ajv
// set-up behind a forwarder), not at start: here with real fastify (inject) beside one with
// fastify's default compiler, which must answer every request the same.

const body = {
  type: 'object',
  properties: { text: { type: 'string', minLength: 1 }, mode: { type: 'string', default: 'plain' } },
  required: ['text'],
  additionalProperties: false,
};
const query = { type: 'object', properties: { limit: { type: 'integer' } }, additionalProperties: false };
const ajv = { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } } as const;
const apps: FastifyInstance[] = [];

function serve(buildValidator?: ValidatorFactory): FastifyInstance {
  const app = Fastify({
    ajv,
    ...(buildValidator
      ? { schemaController: { compilersFactory: { buildValidator: buildValidator as never } } }
      : {}),
  });
  app.post('/echo', { schema: { body, querystring: query } }, async (request) => request.body);
  app.get('/other', { schema: { querystring: query } }, async () => ({ ok: true }));
  apps.push(app);
  return app;
}

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

describe('lazyValidators', () => {
  it('compiles nothing at start and each route part on its first request, once', async () => {
    const compiled: string[] = [];
    const real = fastifyValidatorFactory();
    const counting: ValidatorFactory = (externalSchemas, options) => {
      const compile = real(externalSchemas, options);
      return (route) => {
        compiled.push(`${route.method} ${route.url} ${route.httpPart}`);
        return compile(route);
      };
    };
    const app = serve(lazyValidators(counting));
    await app.ready();
    expect(compiled).toEqual([]);
    for (let round = 0; round < 2; round += 1)
      expect((await app.inject({ method: 'POST', url: '/echo', payload: { text: 'hi' } })).statusCode).toBe(
        200,
      );
    expect(compiled.sort()).toEqual(['POST /echo body', 'POST /echo querystring']);
  });

  it('answers as fastify’s default compiler does: defaults, errors and their messages', async () => {
    const lazy = serve(lazyValidators(fastifyValidatorFactory()));
    const eager = serve();
    const requests = [
      { method: 'POST', url: '/echo', payload: { text: 'hi' } },
      { method: 'POST', url: '/echo', payload: { text: '' } },
      { method: 'POST', url: '/echo', payload: { text: 'hi', extra: 1 } },
      { method: 'POST', url: '/echo', payload: { mode: 'x' } },
      { method: 'POST', url: '/echo?limit=abc', payload: { text: 'hi' } },
      { method: 'GET', url: '/other?limit=2&more=1' },
      { method: 'GET', url: '/other' },
    ] as const;
    for (const request of requests) {
      const [mine, theirs] = await Promise.all([lazy.inject(request), eager.inject(request)]);
      expect({ status: mine.statusCode, body: mine.json() }).toEqual({
        status: theirs.statusCode,
        body: theirs.json(),
      });
    }
    // The default filled in by the schema reached the handler.
    expect((await lazy.inject(requests[0])).json()).toEqual({ text: 'hi', mode: 'plain' });
    expect((await lazy.inject(requests[1])).statusCode).toBe(400);
  });
});
