import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/base/config/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import { createSignalDelivery, createSignalQueue, type SignalTurns } from '../../src/engine/signals/index.js';
import {
  createOutbox,
  createProjectStore,
  outboxFile,
  type ProjectMessage,
} from '../../src/extensions/toolpacks/index.js';
import { createSessionStore } from '../../src/records/sessions/index.js';
import { createStore } from '../../src/records/store/index.js';
import { outboundTo } from '../fakes/outbound.js';

/**
 * A controller's outbox (src/extensions/toolpacks/controller/outbox.ts): a sent message is on disk before
 * `sendMessage` returns, settled once delivery ended, replayed by a new outbox over the same file
 * (a restart), and a replayed message to an agent is not queued twice. In-process: temp files,
 * a memory store, no timers.
 */

const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolpack-outbox-'));
  dirs.push(dir);
  return dir;
}

const message = (id: string): ProjectMessage => ({
  id,
  sender: 'scheduler',
  recipient: 'main',
  priority: 'P1',
  body: `body of ${id}`,
  createdAt: '2030-01-01T00:00:00.000Z',
  toolpackId: 'scheduler',
});

describe('the toolpack outbox', () => {
  it('keeps what was added and not settled for the next outbox over the file, and then only the receipts', () => {
    const file = outboxFile(tempDir(), 'scheduler');
    const first = createOutbox({ file, logger });
    first.add(message('msg_a'));
    first.add(message('msg_b'));
    first.settle('msg_a');
    const restarted = createOutbox({ file, logger });
    expect(restarted.open().map((entry) => entry.id)).toEqual(['msg_b']);
    restarted.settle('msg_b');
    const again = createOutbox({ file, logger });
    expect(again.open()).toEqual([]);
    expect(readFileSync(file, 'utf8')).toBe(
      ['msg_a', 'msg_b']
        .map((id) => `${JSON.stringify({ receipt: { id, state: 'pending', attempts: 0 } })}\n`)
        .join(''),
    );
  });

  it('keeps each message’s latest status across a restart, and removes the file when nothing is kept', () => {
    const file = outboxFile(tempDir(), 'scheduler');
    const first = createOutbox({ file, logger });
    first.add(message('msg_a'));
    first.add(message('msg_b'));
    expect(first.status('msg_a')).toEqual({ state: 'pending', attempts: 0 });
    first.record('msg_a', { state: 'pending', attempts: 1, error: 'refused' });
    first.record('msg_a', { state: 'failed', attempts: 3, error: 'refused' });
    first.settle('msg_a');
    first.record('msg_b', { state: 'delivered', attempts: 1, deliveredAt: '2030-01-01T00:00:01.000Z' });
    const restarted = createOutbox({ file, logger });
    expect(restarted.status('msg_a')).toEqual({ state: 'failed', attempts: 3, error: 'refused' });
    expect(restarted.status('msg_b')).toEqual({
      state: 'delivered',
      attempts: 1,
      deliveredAt: '2030-01-01T00:00:01.000Z',
    });
    expect(restarted.status('msg_c')).toBeUndefined();
    // Rewritten at start: receipts before open messages, and a message line keeps its receipt.
    expect(createOutbox({ file, logger }).status('msg_b')?.state).toBe('delivered');
    expect(existsSync(file)).toBe(true);
    const empty = outboxFile(tempDir(), 'scheduler');
    createOutbox({ file: empty, logger });
    expect(existsSync(empty)).toBe(false);
  });

  it('skips a torn last line and rewrites the file with only what is kept', () => {
    const file = outboxFile(tempDir(), 'scheduler');
    createOutbox({ file, logger }).add(message('msg_a'));
    appendFileSync(file, '{"message":{"id":"msg_b","sen');
    const restarted = createOutbox({ file, logger });
    expect(restarted.open().map((entry) => entry.id)).toEqual(['msg_a']);
    expect(readFileSync(file, 'utf8')).toBe(
      `${JSON.stringify({ receipt: { id: 'msg_a', state: 'pending', attempts: 0 } })}\n${JSON.stringify({ message: message('msg_a') })}\n`,
    );
  });

  it('journals a send before sendMessage returns and settles it once deliver has ended', async () => {
    const stateDir = tempDir();
    const store = await createStore({ url: 'memory://', stateDir, logger });
    const file = outboxFile(stateDir, 'scheduler');
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const projectStore = createProjectStore({
      toolpackId: 'scheduler',
      stateDir,
      routeNames: [],
      coordinatorAgent: 'main',
      listAgents: () => [{ id: 'main', displayName: 'Main', role: 'agent', status: 'idle' }],
      projectStats: () => ({}),
      deliver: () => held,
      outbox: createOutbox({ file, logger }),
      store,
      logger,
    });
    const { id } = projectStore.sendMessage({ sender: 'scheduler', recipient: 'main', body: 'due' });
    // What a process killed now leaves: the next start's outbox holds the message.
    expect(
      createOutbox({ file, logger })
        .open()
        .map((entry) => [entry.id, entry.body]),
    ).toEqual([[id, 'due']]);
    release();
    await held;
    await expect.poll(() => createOutbox({ file, logger }).open()).toEqual([]);
    expect(projectStore.messageStatus(id)).toMatchObject({ state: 'delivered', attempts: 1 });
    await store.close();
  });

  it('does not queue a message again while a pending signal carries its id', async () => {
    const store = await createStore({ url: 'memory://', stateDir: '.', logger });
    const checked = validateConfig({ agents: { main: {}, ops: {} } });
    if (!checked.ok) throw new Error(JSON.stringify(checked.error));
    const turns: SignalTurns = {
      startTurn: () => {
        throw new Error('no turn in this test');
      },
      agentBusy: () => false,
    };
    const signals = createSignalDelivery({
      config: checked.value,
      store,
      sessions: createSessionStore({ store }),
      turns,
      outboundFor: outboundTo({}),
      logger,
    });
    await signals.send(message('msg_a'));
    await signals.send(message('msg_b'));
    await signals.send(message('msg_a'));
    const [pending] = await createSignalQueue({ store, logger }).take('main');
    expect(pending?.payloads?.map((payload) => (payload as { id: string }).id)).toEqual(['msg_a', 'msg_b']);
    expect(pending?.merged).toBe(1);
    await store.close();
  });
});
