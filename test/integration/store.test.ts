import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/index.js';
import { createStore, type Store } from '../../src/store/index.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';

const { logger } = createLogger({ level: 'silent' });

async function tempDir(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'switchboard-store-'));
}

/** The contract every store kind keeps. */
async function checkContract(store: Store): Promise<void> {
  const sessions = store.namespace<{ n: number }>('sessions');
  const transcripts = store.namespace<string>('transcripts');
  await sessions.set('agent:main:webchat:direct:local', { n: 1 });
  await sessions.set('agent:main:slack:channel:C1:thread:17.5', { n: 2 });
  await transcripts.set('agent:main:webchat:direct:local', 'same key, other namespace');

  expect(await sessions.get('agent:main:webchat:direct:local')).toEqual({ n: 1 });
  expect(await sessions.getMany(['agent:main:slack:channel:C1:thread:17.5', 'missing'])).toEqual([
    { n: 2 },
    undefined,
  ]);
  expect(await transcripts.get('agent:main:webchat:direct:local')).toBe('same key, other namespace');
  expect(await sessions.getMany([])).toEqual([]);

  const keys: string[] = [];
  for await (const [key] of sessions.entries()) keys.push(key);
  expect(keys.sort()).toEqual(['agent:main:slack:channel:C1:thread:17.5', 'agent:main:webchat:direct:local']);

  await sessions.delete('agent:main:webchat:direct:local');
  expect(await sessions.get('agent:main:webchat:direct:local')).toBeUndefined();
  expect(store.namespace('sessions')).toBe(sessions);
  expect(() => store.namespace('Bad Name')).toThrow(/bad namespace/);
}

describe('the memory store', () => {
  it('keeps the store contract', async () => {
    const store = await createStore({ url: 'memory://', stateDir: await tempDir(), logger });
    expect(store.kind).toBe('memory');
    await checkContract(store);
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
    await checkContract(store);
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
    await checkContract(store);
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

describe('store urls', () => {
  it('refuses an unknown scheme', async () => {
    await expect(createStore({ url: 'mongo://x', stateDir: '.', logger })).rejects.toThrow(
      /unsupported scheme/,
    );
  });
});
