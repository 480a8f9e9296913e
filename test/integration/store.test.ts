import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import { createStore, probeRedisWithoutPassword } from '../../src/records/store/index.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { checkIndexContract, checkStoreContract } from '../helpers/store-contract.js';

const { logger } = createLogger({ level: 'silent' });

async function tempDir(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'switchboard-store-'));
}

describe('the memory store', () => {
  it('keeps the store contract', async () => {
    const store = await createStore({ url: 'memory://', stateDir: await tempDir(), logger });
    expect(store.kind).toBe('memory');
    await checkStoreContract(store);
    await checkIndexContract(store);
    await store.close();
  });
});

describe('the SQLite store', () => {
  it('is the default, in the state dir, and keeps the contract', async () => {
    const stateDir = await tempDir();
    const store = await createStore({ url: undefined, stateDir, logger });
    expect(store).toMatchObject({
      kind: 'sqlite',
      location: `sqlite://${path.join(stateDir, 'switchboard.sqlite')}`,
    });
    await checkStoreContract(store);
    await checkIndexContract(store);
    await store.close();
  });

  it('keeps data across close and reopen', async () => {
    const stateDir = await tempDir();
    const first = await createStore({ url: undefined, stateDir, logger });
    await first.namespace('sessions').set('k', { kept: true });
    await first.close();
    const second = await createStore({ url: undefined, stateDir, logger });
    expect(await second.namespace('sessions').get('k')).toEqual({ kept: true });
    await second.close();
  });

  it('closes cleanly right after namespaces were opened (vitest fails the run on a stray rejection)', async () => {
    for (let round = 0; round < 5; round += 1) {
      const store = await createStore({ url: undefined, stateDir: await tempDir(), logger });
      store.namespace('sessions');
      store.namespace('transcripts');
      store.namespace('runs');
      await store.close();
    }
  });

  it('refuses a namespace after close', async () => {
    const store = await createStore({
      url: `sqlite://${path.join(await tempDir(), 'x.sqlite')}`,
      stateDir: '.',
      logger,
    });
    await store.close();
    expect(() => store.namespace('sessions')).toThrow(/after close/);
  });
});

describe('the Redis store (real redis-server)', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('keeps the contract and survives a reconnect of the gateway', async () => {
    const store = await createStore({ url: redis.url, stateDir: await tempDir(), logger });
    expect(store.kind).toBe('redis');
    await checkStoreContract(store);
    await checkIndexContract(store);
    await store.close();
    const again = await createStore({ url: redis.url, stateDir: await tempDir(), logger });
    expect(await again.namespace('sessions').get('agent:main:slack:channel:C1:thread:17.5')).toEqual({
      n: 2,
    });
    await again.close();
  });

  it('fails clearly when Redis cannot be reached, without leaking the password', async () => {
    const error = await createStore({ url: 'redis://:hunter2@127.0.0.1:1', stateDir: '.', logger }).catch(
      (e) => e,
    );
    expect(error.code).toBe('STORE_UNAVAILABLE');
    expect(error.message).toContain('redis://127.0.0.1:1');
    expect(error.message).not.toContain('hunter2');
  });
});

describe('the Redis store with a password (real redis-server with requirepass and an ACL user)', () => {
  // URL-encoded in store.url, as a password with `:`, `@` or `/` must be.
  const PASSWORD = 'pa:ss@wo/rd-0123456789';
  const USER_PASSWORD = 'alice-password-9876543210';
  let redis: RedisServer;
  let open: RedisServer;
  beforeAll(async () => {
    [redis, open] = await Promise.all([
      startRedisServer({ requirepass: PASSWORD, users: [{ name: 'alice', password: USER_PASSWORD }] }),
      startRedisServer(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([redis?.stop(), open?.stop()]);
  });

  const withPassword = (user: string, password: string) =>
    `redis://${user}:${encodeURIComponent(password)}@127.0.0.1:${redis.port}`;

  function collectingLogger() {
    const lines: string[] = [];
    const handle = createLogger({ level: 'debug', destination: { write: (line) => void lines.push(line) } });
    return { lines, logger: handle.logger };
  }

  it('connects with the password in store.url, keeps the contract, and names the server without it', async () => {
    const log = collectingLogger();
    const store = await createStore({
      url: withPassword('', PASSWORD),
      stateDir: await tempDir(),
      logger: log.logger,
    });
    expect(store.location).toBe(redis.url);
    await checkStoreContract(store);
    await store.close();
    expect(log.lines.join('')).not.toContain(encodeURIComponent(PASSWORD));
  });

  it('connects as an ACL user (redis://user:password@…)', async () => {
    const store = await createStore({
      url: withPassword('alice', USER_PASSWORD),
      stateDir: await tempDir(),
      logger,
    });
    await store.namespace<string>('sessions').set('k', 'v');
    expect(await store.namespace<string>('sessions').get('k')).toBe('v');
    expect(store.location).toBe(redis.url);
    await store.close();
  });

  it('refuses to start with a wrong password or none, naming the server and never the password', async () => {
    for (const url of [withPassword('', 'wrong-password-000'), redis.url, withPassword('alice', PASSWORD)]) {
      const error = await createStore({ url, stateDir: await tempDir(), logger }).catch((e) => e);
      expect(error.code).toBe('STORE_UNAVAILABLE');
      expect(error.message).toContain(redis.url);
      expect(error.message).not.toContain('wrong-password-000');
      expect(error.message).not.toContain(encodeURIComponent(PASSWORD));
    }
  });

  it('tells a server that needs a password from one that answers without', async () => {
    expect(await probeRedisWithoutPassword(withPassword('', PASSWORD))).toEqual({
      ok: true,
      value: { needsPassword: true },
    });
    expect(await probeRedisWithoutPassword(open.url)).toEqual({ ok: true, value: { needsPassword: false } });
    const unreachable = await probeRedisWithoutPassword('redis://:secret-xyz@127.0.0.1:1');
    expect(unreachable.ok).toBe(false);
    expect(JSON.stringify(unreachable)).not.toContain('secret-xyz');
  });
});

describe('store urls', () => {
  it('refuses an unknown scheme', async () => {
    await expect(createStore({ url: 'mongo://x', stateDir: '.', logger })).rejects.toThrow(
      /unsupported scheme/,
    );
  });
});
