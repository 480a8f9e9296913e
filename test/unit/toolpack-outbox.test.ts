import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/logging/index.js';
import { createSessionStore } from '../../src/sessions/index.js';
import { createSignalDelivery, createSignalQueue, type SignalTurns } from '../../src/signals/index.js';
import { createStore } from '../../src/store/index.js';
import {
  createOutbox,
  createProjectStore,
  outboxFile,
  type ProjectMessage,
} from '../../src/toolpacks/index.js';

/**
 * A controller's outbox (src/toolpacks/controller/outbox.ts): a sent message is on disk before
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
  it('keeps what was added and not settled for the next outbox over the file, and removes the file when none is open', () => {
    const file = outboxFile(tempDir(), 'scheduler');
    const first = createOutbox({ file, logger });
    first.add(message('msg_a'));
    first.add(message('msg_b'));
    first.settle('msg_a');
    const restarted = createOutbox({ file, logger });
    expect(restarted.open().map((entry) => entry.id)).toEqual(['msg_b']);
    restarted.settle('msg_b');
    expect(existsSync(file)).toBe(false);
    expect(createOutbox({ file, logger }).open()).toEqual([]);
  });

  it('skips a torn last line and rewrites the file with only the open entries', () => {
    const file = outboxFile(tempDir(), 'scheduler');
    createOutbox({ file, logger }).add(message('msg_a'));
    appendFileSync(file, '{"message":{"id":"msg_b","sen');
    const restarted = createOutbox({ file, logger });
    expect(restarted.open().map((entry) => entry.id)).toEqual(['msg_a']);
    expect(readFileSync(file, 'utf8')).toBe(`${JSON.stringify({ message: message('msg_a') })}\n`);
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
    await Promise.resolve();
    expect(existsSync(file)).toBe(false);
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
      deliver: async () => undefined,
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
