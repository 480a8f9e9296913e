import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import { createRunStore, createSessionStore } from '../../src/records/sessions/index.js';
import { createStore } from '../../src/records/store/index.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';

const route = { channel: 'webchat', chatType: 'direct', chatId: 'local' } as const;

async function memoryStore() {
  const store = await createStore({
    url: 'memory://',
    stateDir: '.',
    logger: createLogger({ level: 'silent' }).logger,
  });
  return { store };
}

// What an append writes, paging and restarts: sessions-paging.test.ts.
describe('session transcripts', () => {
  it('serializes concurrent appends to one session without losing or reordering any', async () => {
    const { store } = await memoryStore();
    const sessions = createSessionStore({ store });
    await sessions.ensure('s', { agentId: 'main', route });
    await Promise.all(
      Array.from({ length: 50 }, (_, index) => sessions.append('s', { role: 'user', text: `m${index}` })),
    );
    const transcript = await sessions.transcript('s');
    expect(transcript.map((entry) => entry.seq)).toEqual(Array.from({ length: 50 }, (_, index) => index));
    expect(new Set(transcript.map((entry) => entry.text)).size).toBe(50);
  });

  it('reset starts an empty transcript and keeps the old entries in the store', async () => {
    const { store } = await memoryStore();
    const sessions = createSessionStore({ store });
    const first = await sessions.ensure('s', { agentId: 'main', route });
    await sessions.append('s', { role: 'user', text: 'old' });
    const fresh = await sessions.reset('s');
    expect(fresh?.sessionId).not.toBe(first.sessionId);
    expect(await sessions.transcript('s')).toEqual([]);
    expect(await store.namespace('transcripts').get(`${first.sessionId}:0`)).toMatchObject({ text: 'old' });
    expect(await sessions.reset('unknown')).toBeUndefined();
  });
});

describe('the run registry', () => {
  it('marks runs left running by a stopped gateway as interrupted, on SQLite across a reopen', async () => {
    const stateDir = await makeTempDir('switchboard-runs-');
    const logger = createLogger({ level: 'silent' }).logger;
    try {
      const first = await createStore({ url: undefined, stateDir, logger });
      const runs = createRunStore({ store: first });
      const finished = await runs.start({ sessionKey: 's', agentId: 'main', model: 'm' });
      await runs.finish(finished.runId, { status: 'done', rounds: 2, toolCalls: 1 });
      const left = await runs.start({ sessionKey: 's', agentId: 'main', model: 'm' });
      await first.close();

      const second = await createStore({ url: undefined, stateDir, logger });
      const reopened = createRunStore({ store: second });
      const marked = await reopened.markInterrupted();
      expect(marked.map((run) => run.runId)).toEqual([left.runId]);
      expect(await reopened.get(left.runId)).toMatchObject({
        status: 'interrupted',
        endedAt: expect.any(String),
      });
      expect(await reopened.get(finished.runId)).toMatchObject({ status: 'done', rounds: 2, toolCalls: 1 });
      expect(await reopened.markInterrupted()).toEqual([]);
      await second.close();
    } finally {
      await removeDir(stateDir);
    }
  });
});
