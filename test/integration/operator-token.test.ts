import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import { createControlServer } from '../../src/surfaces/control/index.js';
import type { AccessPolicy, HttpServer, ServedRoute } from '../../src/surfaces/http/index.js';

// The operator token (the gateway's own) is the operator: owner-equivalent on every route whatever
// `owners` says. Here `owners` names nobody, and every route the server registers is walked with
// the token: none may answer 401 or 403. The same walk with a named user who is not an owner shows
// the gates are there (each route outside the user's own answers 403).

const TOKEN = 'operator-token-0123456789abcdef';
const ALICE = 'alice-token-0123456789abcdef';
const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });
const NOBODY: AccessPolicy = { isOwner: () => false, isApprover: () => false };

/** A port whose every method fails: a request that reaches it got past every gate (answer 500). */
function anyPort<T>(): T {
  return new Proxy({} as object, {
    get: (_target, name) =>
      name === 'then'
        ? undefined
        : () => {
            throw new Error(`the walk reached ${String(name)}`);
          },
  }) as T;
}

const noop = () => () => undefined;

/** A plausible body per POST route, so that validation (which runs before a handler) passes. */
const BODIES: Record<string, unknown> = {
  'POST /api/webchat/messages': { text: 'hello' },
  'POST /api/webchat/action': { action: 'a' },
  'POST /api/sessions/:key/messages': { text: 'hello' },
  'POST /api/sessions/:key/subagents/:action': { target: '1', message: 'go' },
  'POST /api/approvals/:id': { decision: 'deny' },
  'POST /api/config': { action: 'patch', raw: '{}', baseHash: '0'.repeat(64) },
  'POST /api/config/preview': { action: 'patch', raw: '{}', baseHash: '0'.repeat(64) },
  'POST /api/config/history/:number/undo': { baseHash: '0'.repeat(64) },
  'POST /api/projects/:project/tool-ui/:toolpack/:entry': {},
};

const PARAMS: Record<string, string> = {
  key: 'agent:main:slack:channel:c1',
  action: 'steer',
  id: 'ap_abc',
  number: '1',
  project: 'demo',
  toolpack: 'counter',
  entry: 'show',
  name: 'file.txt',
};

let server: HttpServer;
let base: string;

beforeAll(async () => {
  server = await createControlServer({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    users: { alice: ALICE },
    logger,
    access: NOBODY,
    sessions: anyPort(),
    sessionActions: anyPort(),
    sessionEvents: { subscribe: noop },
    toolpacks: anyPort(),
    webchat: {
      ...anyPort<object>(),
      receive: anyPort(),
      receiveClick: anyPort(),
      subscribe: noop,
      readFile: anyPort(),
    } as never,
    webchatHistory: anyPort(),
    toolUi: { projectId: 'demo', entries: () => [], run: anyPort(), roster: () => [], toolStatus: () => [] },
    channels: () => ({}),
    metrics: { port: anyPort(), public: false },
    config: { control: anyPort(), schema: {}, noteSession: anyPort() },
    approvals: anyPort(),
    status: anyPort(),
    usage: anyPort(),
  });
  base = await server.listen();
});

afterAll(async () => {
  await server?.close();
});

function pathOf(route: ServedRoute): string {
  return route.url.replace(/:([a-z]+)/gi, (_match, name: string) => encodeURIComponent(PARAMS[name] ?? 'x'));
}

/** The status each route answers `token`, the answer's body dropped (event streams never end). */
async function walk(token: string): Promise<{ route: string; status: number }[]> {
  const answers: { route: string; status: number }[] = [];
  for (const route of server.routes.filter((served) => !served.public && !served.page)) {
    const name = `${route.method} ${route.url}`;
    const abort = new AbortController();
    const body = route.method === 'GET' ? undefined : JSON.stringify(BODIES[name] ?? {});
    const answer = await fetch(`${base}${pathOf(route)}`, {
      method: route.method,
      headers: {
        authorization: `Bearer ${token}`,
        connection: 'close',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body,
      signal: abort.signal,
    });
    abort.abort();
    answers.push({ route: name, status: answer.status });
  }
  return answers;
}

describe('the operator token on every route', () => {
  it('is refused nowhere (no 401, no 403) while owners names nobody', async () => {
    const answers = await walk(TOKEN);
    expect(answers.length).toBeGreaterThan(25);
    expect(answers.filter((answer) => answer.status === 401 || answer.status === 403)).toEqual([]);
  });

  it('while a named user who is not an owner is refused every route but their own', async () => {
    const refused = (await walk(ALICE))
      .filter((answer) => answer.status === 403)
      .map((answer) => answer.route);
    expect(refused).toContain('GET /api/status');
    expect(refused).toContain('GET /api/sessions/:key/transcript');
    expect(refused.filter((route) => /^(GET \/api\/me|\w+ \/api\/webchat\/)/.test(route))).toEqual([]);
    expect(refused.length).toBeGreaterThan(15);
  });
});
