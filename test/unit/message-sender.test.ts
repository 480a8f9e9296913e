import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import {
  createMessageSender,
  createOutbox,
  type DeliveryOutcome,
  outboxFile,
  type ProjectMessage,
} from '../../src/extensions/toolpacks/index.js';

/**
 * A toolpack's message delivery with receipts (src/extensions/toolpacks/controller/message-sender.ts) over a
 * real outbox file: a restart while a refusal is being retried retries on with the attempts
 * counted, a replay after a kill that lost the settle line does not post twice, a wake turn makes
 * a queued message delivered (and never back), and `stop` clears the retry timers.
 */

const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });
const dirs: string[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function journal(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'message-sender-'));
  dirs.push(dir);
  return outboxFile(dir, 'scheduler');
}

const message = (id: string, target: Partial<ProjectMessage> = { channel: '#ops' }): ProjectMessage => ({
  id,
  sender: 'scheduler',
  ...target,
  priority: 'P3',
  body: `body of ${id}`,
  createdAt: '2030-01-01T00:00:00.000Z',
  toolpackId: 'scheduler',
});

function sender(file: string, deliver: (message: ProjectMessage) => Promise<DeliveryOutcome>) {
  const outbox = createOutbox({ file, logger });
  const made = createMessageSender({
    toolpackId: 'scheduler',
    deliver,
    outbox,
    // Long enough that no retry runs within a test unless it is awaited for.
    retry: { attempts: 3, retryDelayMs: 60_000, backoffFactor: 2 },
    logger,
  });
  return { outbox, sender: made };
}

const refuse = async (): Promise<DeliveryOutcome> => {
  throw new Error('the route is down');
};

describe('the toolpack message sender', () => {
  it('a restart during the retries retries on, counting the attempts already made, then fails', async () => {
    const file = journal();
    const first = sender(file, refuse);
    first.outbox.add(message('msg_a'));
    await first.sender.send(message('msg_a'));
    expect(first.sender.status('msg_a')).toEqual({
      state: 'pending',
      attempts: 1,
      error: 'the route is down',
    });
    first.sender.stop();

    const second = sender(file, refuse);
    expect(second.outbox.open().map((entry) => entry.id)).toEqual(['msg_a']);
    await second.sender.resume(message('msg_a'));
    expect(second.sender.status('msg_a')).toMatchObject({ state: 'pending', attempts: 2 });
    second.sender.stop();

    const third = sender(file, refuse);
    await third.sender.resume(message('msg_a'));
    expect(third.sender.status('msg_a')).toEqual({
      state: 'failed',
      attempts: 3,
      error: 'the route is down',
    });
    expect(third.outbox.open()).toEqual([]);
    third.sender.stop();
  });

  it('a replay after a kill that lost the settle line does not post a delivered message again', async () => {
    const file = journal();
    const posts: string[] = [];
    const post = async (sent: ProjectMessage): Promise<DeliveryOutcome> => {
      posts.push(sent.id);
      return 'posted';
    };
    const first = sender(file, post);
    first.outbox.add(message('msg_a'));
    // What a kill between the fsynced receipt and the settle line leaves: delivered, still open.
    first.outbox.record('msg_a', {
      state: 'delivered',
      attempts: 1,
      deliveredAt: '2030-01-01T00:00:01.000Z',
    });

    const second = sender(file, post);
    expect(second.outbox.open().map((entry) => entry.id)).toEqual(['msg_a']);
    await second.sender.resume(message('msg_a'));
    expect(posts).toEqual([]);
    expect(second.outbox.open()).toEqual([]);
    expect(second.sender.status('msg_a')).toMatchObject({ state: 'delivered', attempts: 1 });
  });

  it('a queued message is pending until its wake turn starts, and a wake never downgrades or invents one', async () => {
    const file = journal();
    const { outbox, sender: made } = sender(file, async () => 'queued');
    outbox.add(message('msg_a', { recipient: 'ops' }));
    await made.send(message('msg_a', { recipient: 'ops' }));
    expect(made.status('msg_a')).toEqual({ state: 'pending', attempts: 1 });
    made.woken(['msg_a', 'msg_elsewhere'], new Date('2030-01-01T00:00:02.000Z'));
    expect(made.status('msg_a')).toEqual({
      state: 'delivered',
      attempts: 1,
      deliveredAt: '2030-01-01T00:00:02.000Z',
    });
    expect(made.status('msg_elsewhere')).toBeUndefined();
    made.woken(['msg_a'], new Date('2030-01-01T00:00:09.000Z'));
    expect(made.status('msg_a')?.deliveredAt).toBe('2030-01-01T00:00:02.000Z');
    expect(createOutbox({ file, logger }).status('msg_a')?.state).toBe('delivered');
  });

  it('stop clears the retry timers: nothing is attempted after it', async () => {
    vi.useFakeTimers();
    const file = journal();
    let tries = 0;
    const outbox = createOutbox({ file, logger });
    const made = createMessageSender({
      toolpackId: 'scheduler',
      deliver: async () => {
        tries += 1;
        throw new Error('refused');
      },
      outbox,
      retry: { attempts: 5, retryDelayMs: 10, backoffFactor: 1 },
      logger,
    });
    outbox.add(message('msg_a'));
    await made.send(message('msg_a'));
    await vi.advanceTimersByTimeAsync(10);
    expect(tries).toBe(2);
    made.stop();
    await vi.advanceTimersByTimeAsync(1000);
    expect(tries).toBe(2);
    expect(made.status('msg_a')).toMatchObject({ state: 'pending', attempts: 2 });
    expect(outbox.open().map((entry) => entry.id)).toEqual(['msg_a']);
  });
});
