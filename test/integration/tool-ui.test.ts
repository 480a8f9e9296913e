import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkWebuiHandlers,
  type LoadedToolpack,
  type ToolpackProblem,
} from '../../src/extensions/toolpacks/index.js';
import { startToolUiServer, type ToolUiServer } from '../helpers/tool-ui-server.js';

const TOKEN = 'tool-ui-test-token';
const ALICE_TOKEN = 'tool-ui-alice-token-0123456789';
const STATS = { agents: 2, toolpacks: 3 };

let server: ToolUiServer;
let toolpacks: LoadedToolpack[];
let problems: ToolpackProblem[];
let url: string;
const logLines: string[] = [];

beforeAll(async () => {
  server = await startToolUiServer({
    fixtures: ['toolpacks/review-tools', 'webui-toolpacks/counter', 'controller-toolpacks/broken-module'],
    token: TOKEN,
    stats: STATS,
    logLines,
  });
  ({ toolpacks, problems, url } = server);
});

afterAll(async () => {
  await server?.close();
});

async function request(method: 'GET' | 'POST', route: string, body?: unknown, token: string | null = TOKEN) {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const init: RequestInit = { method, headers, redirect: 'manual' };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await fetch(`${url}${route}`, init);
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: text ? safeJson(text) : undefined,
  };
}

function safeJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Runs an entry of review-tools (`review.*`) or counter (the rest). */
function run(entry: string, body?: unknown) {
  const toolpack = entry.startsWith('review.') ? 'review-tools' : 'counter';
  return request('POST', `/api/projects/default/tool-ui/${toolpack}/${entry}`, body);
}

describe('checkWebuiHandlers', () => {
  it('reports a declared entry with no handler, and the entries of a module that does not load', () => {
    const counter = toolpacks.find((toolpack) => toolpack.id === 'counter');
    const broken = toolpacks.find((toolpack) => toolpack.id === 'broken-module');
    expect(problems).toEqual([
      {
        file: counter?.manifestFile,
        rule: 'webui-handler-missing',
        pointer: '/webui/3',
        message: expect.stringMatching(
          /^WebUI entry "counter\.orphan" has no handler: .*controller\.mjs exports no/,
        ),
      },
      {
        file: broken?.manifestFile,
        rule: 'webui-handler-missing',
        pointer: '/webui/0',
        message: expect.stringContaining('the controller cannot start without its settings'),
      },
    ]);
  });

  it('reports every entry of a toolpack without a controller host', async () => {
    const counter = toolpacks.find((toolpack) => toolpack.id === 'counter') as LoadedToolpack;
    const missing = await checkWebuiHandlers([counter], new Map());
    expect(missing.map((problem) => problem.pointer)).toEqual([
      '/webui/0',
      '/webui/1',
      '/webui/2',
      '/webui/3',
    ]);
    expect(missing[0]?.message).toContain('no controller host');
  });
});

describe('the tool-ui API', () => {
  it('lists the entries that have handlers, every key present', async () => {
    const answer = await request('GET', '/api/projects/default/tool-ui');
    expect(answer.status).toBe(200);
    expect(answer.body.project).toBe('default');
    expect(answer.body.entries.map((entry: any) => `${entry.toolpack}/${entry.id}`)).toEqual([
      'review-tools/review.stats',
      'counter/counter.value',
      'counter/counter.add',
      'counter/counter.fail',
    ]);
    expect(answer.body.entries[0]).toEqual({
      toolpack: 'review-tools',
      id: 'review.stats',
      title: 'Review statistics',
      description: 'Show cached review counts.',
      kind: 'panel',
      inputSchema: null,
      submitLabel: null,
    });
    const add = answer.body.entries[2];
    expect(add).toMatchObject({
      kind: 'action',
      submitLabel: 'Add',
      inputSchema: { required: ['amount', 'sender'] },
    });
  });

  it('runs the review.stats panel with an empty object; a POST without a JSON body is refused', async () => {
    const expected = { output: JSON.stringify(STATS, null, 2), metadata: { stats: STATS } };
    const empty = await run('review.stats', {});
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual(expected);
    // A bodyless POST is what a page on another origin can send without asking.
    const bodyless = await run('review.stats');
    expect(bodyless.status).toBe(415);
    expect(bodyless.body.message).toContain('needs Content-Type: application/json');
  });

  it('runs no entry for a page on another local port, even with the cookie', async () => {
    const port = new URL(url).port;
    const before = (await run('counter.value', {})).body.metadata.count;
    // What another port's page can send without a preflight: the cookie (SameSite=Strict is per
    // site, and every port of 127.0.0.1 is one site), a text/plain body and its own Origin.
    const cookie = `switchboard_token_${port}=${TOKEN}`;
    const attacks: Array<[Record<string, string>, number]> = [
      [{ origin: 'http://127.0.0.1:5173', 'content-type': 'text/plain;charset=UTF-8' }, 403],
      [{ origin: 'http://127.0.0.1:5173', 'content-type': 'application/json' }, 403],
      [{ origin: `http://127.0.0.1:${port}`, 'content-type': 'text/plain;charset=UTF-8' }, 415],
    ];
    for (const [headers, status] of attacks) {
      for (const entry of ['counter.value', 'counter.fail']) {
        const response = await fetch(`${url}/api/projects/default/tool-ui/counter/${entry}`, {
          method: 'POST',
          headers: { cookie, ...headers },
          body: '{}',
        });
        expect(response.status, `${entry} ${JSON.stringify(headers)}`).toBe(status);
      }
    }
    const sameOrigin = await fetch(`${url}/api/projects/default/tool-ui/counter/counter.value`, {
      method: 'POST',
      headers: { cookie, origin: `http://127.0.0.1:${port}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(sameOrigin.status).toBe(200);
    expect(((await sameOrigin.json()) as any).metadata.count).toBe(before);
  });

  it('runs an action with valid input (defaults filled in) and the panel sees its effect', async () => {
    const first = await run('counter.add', { amount: 2, sender: 'pm', loud: true });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      output: 'pm added 2; the counter is at 2.',
      metadata: { count: 2, input: { amount: 2, sender: 'pm', loud: true, mode: 'add' } },
    });
    await run('counter.add', { amount: 3, sender: 'reviewer', note: 'again' });
    const panel = await run('counter.value', {});
    expect(panel.body).toEqual({ output: 'The counter is at 5.', title: 'Counter', metadata: { count: 5 } });
  });

  it('refuses invalid input with 400 naming the JSON path, without running the handler', async () => {
    const cases: Array<[unknown, string, RegExp]> = [
      [{ sender: 'pm' }, '/amount', /is required/],
      [{ amount: 0, sender: 'pm' }, '/amount', /must be >= 1/],
      [{ amount: 1.5, sender: 'pm' }, '/amount', /must be integer/],
      [{ amount: 1, sender: 'pm', mode: 'double' }, '/mode', /must be one of: "add", "set"/],
      [{ amount: 1, sender: 'pm', colour: 'red' }, '/colour', /unknown key/],
      [['not', 'an', 'object'], '/', /must be object/],
    ];
    for (const [body, pointer, reason] of cases) {
      const answer = await run('counter.add', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body).toEqual({
        error: 'bad_request',
        path: pointer,
        message: expect.stringMatching(reason),
      });
      expect(answer.body.message).toContain(`input ${pointer}:`);
    }
    expect((await run('counter.value', {})).body.metadata).toEqual({ count: 5 });
  });

  it('answers 404 for another project, an unknown toolpack, an unknown entry and an entry without a handler', async () => {
    const cases: Array<['GET' | 'POST', string, string]> = [
      ['GET', '/api/projects/other/tool-ui', 'unknown project: other'],
      ['GET', '/api/projects/other/roster', 'unknown project: other'],
      ['POST', '/api/projects/other/tool-ui/counter/counter.value', 'unknown project: other'],
      ['POST', '/api/projects/default/tool-ui/nope/counter.value', 'unknown toolpack: nope'],
      [
        'POST',
        '/api/projects/default/tool-ui/counter/counter.nope',
        'the counter toolpack has no WebUI entry counter.nope',
      ],
      [
        'POST',
        '/api/projects/default/tool-ui/counter/counter.orphan',
        'the counter toolpack has no WebUI entry counter.orphan',
      ],
      [
        'POST',
        '/api/projects/default/tool-ui/review-tools/counter.value',
        'the review-tools toolpack has no WebUI entry counter.value',
      ],
    ];
    for (const [method, route, message] of cases) {
      const answer = await request(method, route, method === 'POST' ? {} : undefined);
      expect(answer.status, route).toBe(404);
      expect(answer.body, route).toEqual({ error: 'not_found', message });
    }
  });

  it('answers input the controller refuses with 400, logged at info: its own errors and ajv failures', async () => {
    logLines.length = 0;
    const sender = await run('counter.add', { amount: 1, sender: 'mallory' });
    expect(sender.status).toBe(400);
    expect(sender.body).toEqual({
      error: 'bad_request',
      message: 'counter.add refused the input: unknown sender "mallory" (agents: pm, reviewer)',
    });
    const note = await run('counter.add', { amount: 1, sender: 'pm', note: '<script>' });
    expect(note.status).toBe(400);
    expect(note.body).toEqual({
      error: 'bad_request',
      path: '/note',
      message: 'counter.add refused the input: /note must match pattern "^[^<>]*$"',
    });
    const logged = logLines.map((line) => JSON.parse(line));
    expect(logged.filter((line) => line.level >= 50)).toEqual([]);
    expect(
      logged.filter((line) => line.level === 30 && line.msg === 'toolpack WebUI entry refused the input'),
    ).toHaveLength(2);
    // Nothing was added.
    expect((await run('counter.value', {})).body.metadata).toEqual({ count: 5 });
  });

  it('answers a failing handler with 500 naming the toolpack and entry, without a stack', async () => {
    const answer = await run('counter.fail', {});
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({
      error: 'webui_failed',
      message: 'counter.fail failed in the counter controller: the counter jammed',
    });
    expect(answer.text).not.toMatch(/\bat .*\.mjs/);
  });

  it('lists the roster', async () => {
    const answer = await request('GET', '/api/projects/default/roster');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      agents: [
        { id: 'pm', displayName: 'Project manager' },
        { id: 'reviewer', displayName: 'Reviewer' },
      ],
    });
  });

  it('needs the token', async () => {
    for (const [method, route] of [
      ['GET', '/api/projects/default/tool-ui'],
      ['POST', '/api/projects/default/tool-ui/counter/counter.value'],
      ['GET', '/api/projects/default/roster'],
    ] as const) {
      const answer = await request(method, route, method === 'POST' ? {} : undefined, null);
      expect(answer.status, route).toBe(401);
      const wrong = await request(method, route, method === 'POST' ? {} : undefined, 'wrong');
      expect(wrong.status, route).toBe(401);
    }
    // The page is served signed out (it holds no data; its sign-in form shows); its API is not.
    expect((await request('GET', '/tools', undefined, null)).status).toBe(200);
  });
});

describe('the Tools page', () => {
  it('is the control UI (the page / serves, opening on Tools): its own scripts only, no inline page', async () => {
    const tools = await request('GET', '/tools');
    expect(tools.status).toBe(200);
    expect(tools.headers.get('content-type')).toMatch(/^text\/html/);
    expect(tools.text).toBe((await request('GET', '/')).text);
    expect(tools.headers.get('content-security-policy')).toContain("script-src 'self';");
    expect(tools.text).toMatch(/<script[^>]* src="\/assets\/index-[\w-]+\.js"/);
    // Every script is a file: none inline (the old page inlined web/tools.js).
    expect(tools.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(tools.text).not.toContain('ROSTER_FIELDS');
  });

  it('moves ?token= into an HttpOnly cookie and redirects to /tools', async () => {
    const answer = await request('GET', `/tools?token=${TOKEN}`, undefined, null);
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/tools');
    const port = new URL(url).port;
    expect(answer.headers.get('set-cookie')).toBe(
      `switchboard_token_${port}=${TOKEN}; Max-Age=2592000; Path=/; HttpOnly; SameSite=Strict`,
    );
    const wrong = await request('GET', '/tools?token=wrong', undefined, null);
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
  });
});

describe("the packaged toolpacks' WebUI entries", () => {
  it('answer input their controller refuses with 400 (scheduler, plan)', async () => {
    const packaged = await startToolUiServer({
      fixtures: ['../../toolpacks/scheduler', '../../toolpacks/plan'],
      token: TOKEN,
      stats: STATS,
    });
    try {
      const post = async (toolpack: string, entry: string, body: unknown) => {
        const response = await fetch(`${packaged.url}/api/projects/default/tool-ui/${toolpack}/${entry}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return { status: response.status, body: (await response.json()) as any };
      };
      const cancel = await post('scheduler', 'schedule.cancel', { id: 'no-such-job' });
      expect(cancel).toEqual({
        status: 400,
        body: {
          error: 'bad_request',
          message:
            'schedule.cancel refused the input: no scheduled job no-such-job (see schedule.list with includeInactive)',
        },
      });
      const close = await post('plan', 'plan.close', {});
      expect(close.status).toBe(400);
      expect(close.body.message).toContain('plan.close refused the input: there is no active plan');
    } finally {
      await packaged.close();
    }
  });
});

describe('the Tools API for a signed-in user who is not an owner', () => {
  let guarded: ToolUiServer;
  const guardedLog: string[] = [];

  beforeAll(async () => {
    guarded = await startToolUiServer({
      fixtures: ['webui-toolpacks/counter'],
      token: TOKEN,
      users: { alice: ALICE_TOKEN },
      stats: STATS,
      logLines: guardedLog,
      access: { isOwner: () => false, isApprover: () => false },
    });
  });

  afterAll(async () => {
    await guarded?.close();
  });

  const call = async (method: 'GET' | 'POST', route: string, body?: unknown) => {
    const response = await fetch(`${guarded.url}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${ALICE_TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  // The gateway token is the operator, owner-equivalent whatever `owners` says: a named user is refused.
  const refusal = {
    status: 403,
    body: {
      error: 'forbidden',
      message: expect.stringMatching(
        /^webchat:alice, role member may not call \w+ \/api\/.+: role member lacks it \(roles\.member\.routes: /,
      ),
    },
  };

  it('refuses the entries, the roster and the tool status (403 naming the sender)', async () => {
    expect(await call('GET', '/api/projects/default/tool-ui')).toEqual(refusal);
    expect(await call('GET', '/api/projects/default/roster')).toEqual(refusal);
    expect(await call('GET', '/api/projects/default/tool-status')).toEqual(refusal);
  });

  it('refuses to run an entry before anything else is checked: the handler never runs', async () => {
    expect(await call('POST', '/api/projects/default/tool-ui/counter/counter.fail', {})).toEqual(refusal);
    // Bad input, unknown entries and projects get the same answer: nothing is told before the owner check.
    const add = '/api/projects/default/tool-ui/counter/counter.add';
    expect(await call('POST', add, { amount: 'lots' })).toEqual(refusal);
    expect(await call('POST', '/api/projects/default/tool-ui/counter/no.such', {})).toEqual(refusal);
    expect(await call('POST', '/api/projects/other/tool-ui/counter/counter.value', {})).toEqual(refusal);
    // counter.fail logs its failure when it runs (see the owner's test above): it never ran.
    expect(guardedLog.filter((line) => line.includes('counter.fail'))).toEqual([]);
  });
});
