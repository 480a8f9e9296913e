import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_TOKEN, type TestGateway } from '../helpers/gateway.js';

/**
 * The config page's API through a real gateway's HTTP server: the redacted file and the schema,
 * preview and edit through the gateway control (hash, validation, audit, restart and its note in
 * the owner's web chat session), history with diffs and undo, and the refusals: 403 for a sender
 * who is not an owner, 400 naming the field, 409 for a stale hash, 404 for an unknown change.
 */

const OWNER_SESSION = 'agent:main:webchat:direct:local';
const WAIT = { timeout: 15_000, interval: 100 };

describe('the config API', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ config: { log: { level: 'info' } } });
  });

  afterAll(async () => {
    await gateway?.dispose();
  });

  const hash = async () => (await gateway.request('GET', '/api/config')).body.hash as string;

  it('shows the file redacted with its hash, and the schema with descriptions', async () => {
    const config = await gateway.request('GET', '/api/config');
    expect(config.status).toBe(200);
    expect(config.body.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(config.body.config.log).toEqual({ level: 'info' });
    expect(config.body.config.http.token).toBe('__SWITCHBOARD_REDACTED__');
    expect(JSON.stringify(config.body)).not.toContain(TEST_TOKEN);
    const schema = await gateway.request('GET', '/api/config/schema');
    expect(schema.status).toBe(200);
    expect(schema.body.properties.log.properties.level.enum).toContain('debug');
    expect(schema.body.properties.http.properties.token['x-secret']).toBe(true);
    expect(schema.body.properties.log.description).toBe('Logging.');
  });

  it('refuses bad input naming the field, a bad value naming its path, and a stale hash as 409', async () => {
    const baseHash = await hash();
    const missing = await gateway.request('POST', '/api/config/preview', { action: 'patch', raw: '{}' });
    expect(missing).toMatchObject({ status: 400, body: { field: 'baseHash' } });
    const extra = await gateway.request('POST', '/api/config', {
      action: 'patch',
      raw: '{}',
      baseHash,
      x: 1,
    });
    expect(extra).toMatchObject({ status: 400, body: { field: 'x' } });
    const query = await gateway.request('GET', '/api/config/history?limit=5');
    expect(query).toMatchObject({ status: 400, body: { field: 'limit' } });
    const action = await gateway.request('POST', '/api/config', { action: 'drop', raw: '{}', baseHash });
    expect(action).toMatchObject({ status: 400, body: { field: 'action' } });
    const value = await gateway.request('POST', '/api/config/preview', {
      action: 'patch',
      raw: '{ "log": { "level": "loud" } }',
      baseHash,
    });
    expect(value.status).toBe(400);
    expect(value.body.field).toBe('log.level');
    expect(value.body.message).toContain('/log/level');
    const stale = await gateway.request('POST', '/api/config', {
      action: 'patch',
      raw: '{ "log": { "level": "debug" } }',
      baseHash: '0'.repeat(64),
    });
    expect(stale).toMatchObject({ status: 409, body: { field: 'baseHash' } });
    expect(stale.body.message).toContain('nothing was written');
    const broken = await gateway.request('POST', '/api/config', { action: 'apply', raw: '{ nope', baseHash });
    expect(broken.status).toBe(400);
    expect(await hash()).toBe(baseHash);
  });

  it('previews, edits, restarts with the note in the owner session, lists, diffs and undoes', async () => {
    const baseHash = await hash();
    const edit = { action: 'patch', raw: '{ "log": { "level": "debug" } }', baseHash };
    const preview = await gateway.request('POST', '/api/config/preview', edit);
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ changed: true, changedPaths: ['log.level'] });
    expect(preview.body.diff).toContain('+');
    expect(await hash()).toBe(baseHash);

    const saved = await gateway.request('POST', '/api/config', { ...edit, note: 'louder logs' });
    expect(saved.status).toBe(200);
    expect(saved.body.outcome).toMatchObject({ changed: true, changedPaths: ['log.level'] });
    expect(saved.body.outcome.restart.status).toBe('scheduled');
    expect(saved.body.note.sessionKey).toBe(OWNER_SESSION);
    await expect
      .poll(async () => {
        const transcript = await gateway
          .request('GET', `/api/sessions/${encodeURIComponent(OWNER_SESSION)}/transcript`)
          .catch(() => undefined);
        return transcript?.body?.entries?.map((entry: { text: string }) => entry.text) ?? [];
      }, WAIT)
      .toContain('Gateway restarted (config-patch): louder logs');
    expect((await gateway.request('GET', '/api/config')).body.config.log).toEqual({ level: 'debug' });

    const history = await gateway.request('GET', '/api/config/history');
    expect(history.status).toBe(200);
    expect(history.body.changes).toHaveLength(1);
    expect(history.body.changes[0]).toMatchObject({
      number: 1,
      actor: 'webchat:local',
      via: 'command',
      note: 'louder logs',
    });
    const change = await gateway.request('GET', '/api/config/history/1');
    expect(change.status).toBe(200);
    expect(change.body.diff).toContain('"debug"');
    expect((await gateway.request('GET', '/api/config/history/9')).status).toBe(404);
    expect(await gateway.request('GET', '/api/config/history/one')).toMatchObject({
      status: 400,
      body: { field: 'number' },
    });
    const undo = await gateway.request('POST', '/api/config/history/1/undo', { baseHash: await hash() });
    expect(undo.status).toBe(200);
    expect(undo.body.outcome).toMatchObject({ changed: true, changedPaths: ['log.level'] });
    await expect
      .poll(
        async () => (await gateway.request('GET', '/api/config').catch(() => undefined))?.body?.config?.log,
        WAIT,
      )
      .toEqual({ level: 'info' });
    const after = await gateway.request('GET', '/api/config/history');
    expect(after.body.changes.at(-1)).toMatchObject({ action: 'config.undo', undoes: 1 });
  });
});

describe('the config API for a sender who is not an owner', () => {
  let gateway: TestGateway;
  const ALICE_TOKEN = 'alice-token-0123456789abcdef';

  beforeAll(async () => {
    gateway = await startTestGateway({
      config: { http: { port: 0, token: TEST_TOKEN, users: { alice: { token: ALICE_TOKEN } } } },
    });
  });

  afterAll(async () => {
    await gateway?.dispose();
  });

  const calls: [string, string, unknown?][] = [
    ['GET', '/api/config'],
    ['GET', '/api/config/schema'],
    ['POST', '/api/config/preview', { action: 'patch', raw: '{}', baseHash: '0'.repeat(64) }],
    ['POST', '/api/config', { bad: true }],
    ['GET', '/api/config/history'],
    ['GET', '/api/config/history/1'],
    ['POST', '/api/config/history/1/undo', { baseHash: '0'.repeat(64) }],
  ];

  it('answers every route 403 naming the signed-in user, before reading the body', async () => {
    for (const [method, route, body] of calls) {
      const response = await fetch(`${gateway.url}${route}`, {
        method,
        headers: {
          authorization: `Bearer ${ALICE_TOKEN}`,
          connection: 'close',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const answer = (await response.json()) as { message: string };
      expect(response.status, `${method} ${route}`).toBe(403);
      expect(answer.message).toContain('webchat:alice, role member may not call');
    }
    // The operator (the gateway token, an owner by default) is let through.
    expect((await gateway.request('GET', '/api/config')).status).toBe(200);
  });
});

describe('the config API when restarts are off', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ config: { commands: { restart: false } } });
  });

  afterAll(async () => {
    await gateway?.dispose();
  });

  it('writes the edit and says it applies at the next start', async () => {
    const { hash } = (await gateway.request('GET', '/api/config')).body;
    const saved = await gateway.request('POST', '/api/config', {
      action: 'patch',
      raw: '{ "log": { "level": "warn" } }',
      baseHash: hash,
    });
    expect(saved.status).toBe(200);
    expect(saved.body.outcome).toMatchObject({
      changed: true,
      restartNeeded: true,
      restart: { scheduled: false },
    });
    expect(saved.body.outcome.restart.reason).toContain('commands.restart');
    expect((await gateway.request('GET', '/api/config')).body.config.log).toEqual({ level: 'warn' });
    expect(gateway.host.restarts).toBe(0);
  });
});
