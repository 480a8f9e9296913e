import { Agent, request } from 'node:http';
import Fastify from 'fastify';
import type { WebchatPort } from '../src/surfaces/http/index.js';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from '../test/helpers/gateway.js';
import type { Send } from './durable-drive.js';

/**
 * The Switchboard side of the durable bench: a real gateway (the test gateway: in this process,
 * port 0, a temp or given state dir) with its web chat channel at hand, and the two ways a
 * message reaches it: in-process (`webchat.receive`, what the HTTP route calls) and over HTTP.
 */

export type StoreKind = 'memory' | 'sqlite';

export interface BenchGateway {
  gateway: TestGateway;
  /** The web chat channel of the gateway serving now (a restart replaces it). */
  webchat(): WebchatPort;
  inProcess(text: string): Send;
}

export async function startBenchGateway(
  store: StoreKind,
  options: TestGatewayOptions = {},
): Promise<BenchGateway> {
  let webchat: WebchatPort | undefined;
  const gateway = await startTestGateway({
    ...options,
    config: {
      log: { level: 'warn' },
      ...(store === 'memory' ? { store: { url: 'memory://' } } : {}),
      ...options.config,
    },
    onServing: (parts) => {
      webchat = parts.webchat;
    },
  });
  const current = () => {
    if (!webchat) throw new Error('the bench gateway has no web chat channel');
    return webchat;
  };
  return {
    gateway,
    webchat: current,
    inProcess: (text) => async (_index, user) => {
      const result = await current().receive({ text, user });
      return result.replies.length > 0 ? undefined : `no reply for ${user}`;
    },
  };
}

/**
 * POSTs the web chat message body to `url` through node:http with a keep-alive agent (one socket
 * per message in flight, reused): a lighter client than fetch, so that less of the figure is the
 * client's. The same client for the gateway and the bare fastify app.
 */
export function httpSend(url: string, token: string, text: string): Send {
  const target = new URL('/api/webchat/messages', url);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  return (_index, user) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ text, user });
      const call = request(target, { method: 'POST', agent, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const answer = Buffer.concat(chunks).toString('utf8');
          if (response.statusCode !== 200)
            return resolve(`HTTP ${response.statusCode}: ${answer.slice(0, 200)}`);
          const parsed = JSON.parse(answer) as { replies?: unknown[] };
          resolve(
            Array.isArray(parsed.replies) && parsed.replies.length > 0
              ? undefined
              : `no reply: ${answer.slice(0, 200)}`,
          );
        });
      });
      call.on('error', reject);
      call.end(body);
    });
}

/**
 * The bare fastify baseline: the same route and body schema as the web chat message API, a
 * fixed JSON answer of the same shape, no auth hook, no logger; what fastify itself does per POST.
 */
export async function startBareFastify(): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify({ logger: false });
  const name = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' };
  const body = {
    type: 'object',
    properties: { text: { type: 'string', minLength: 1, maxLength: 32_000 }, user: name, thread: name },
    required: ['text'],
    additionalProperties: false,
  };
  let id = 0;
  app.post<{ Body: { text: string; user?: string } }>(
    '/api/webchat/messages',
    { schema: { body } },
    async (request) => ({
      sessionKey: `agent:main:webchat:direct:${request.body.user ?? 'local'}`,
      replies: [{ id: String(id++), text: 'No model is configured; your message was received.' }],
    }),
  );
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url, close: () => app.close() };
}
