import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../src/base/errors/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import type { InboundMessage } from '../../src/base/messages/index.js';
import { createWebchatAdapter, type WebchatEvent } from '../../src/surfaces/channels/index.js';

/** The web chat adapter in-process: what it hands the router, and what reaches which page. */

const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });
const route = (user: string, thread?: string) => ({
  channel: 'webchat' as const,
  chatType: 'direct' as const,
  chatId: user,
  ...(thread === undefined ? {} : { threadId: thread }),
});

/** Answers a click as the router does (one reply at once, never a turn); a message gets no reply. */
async function started() {
  const webchat = createWebchatAdapter({ logger });
  const heard: InboundMessage[] = [];
  await webchat.start(async (message) => {
    heard.push(message);
    const replies =
      message.action === undefined ? [] : [{ id: 'answer', text: `Approved by ${message.senderId}` }];
    return { sessionKey: `agent:main:webchat:direct:${message.chatId}`, replies };
  });
  return { webchat, heard };
}

const BUTTONS = [
  { label: 'Approve', value: 'approval:a1:approve', style: 'primary' as const },
  { label: 'Deny', value: 'approval:a1:deny', style: 'danger' as const },
];

describe('the web chat adapter', () => {
  it('refuses messages before start with GATEWAY_STATE (the HTTP layer answers 503)', async () => {
    const webchat = createWebchatAdapter({ logger });
    const refused = webchat.receive({ text: 'hi', user: 'ann' });
    await expect(refused).rejects.toBeInstanceOf(SwitchboardError);
    await expect(refused).rejects.toMatchObject({ code: 'GATEWAY_STATE' });
  });

  it('hands a message to the handler as a direct chat of its user, with its thread', async () => {
    const { webchat, heard } = await started();
    const result = await webchat.receive({ text: 'hi', user: 'ann', thread: 't1' });
    expect(result.sessionKey).toBe('agent:main:webchat:direct:ann');
    expect(heard).toEqual([
      {
        channel: 'webchat',
        chatType: 'direct',
        chatId: 'ann',
        threadId: 't1',
        senderId: 'webchat:ann',
        text: 'hi',
        messageId: expect.any(String),
      },
    ]);
  });

  it("streams replies and deltas to the user's pages only", async () => {
    const { webchat } = await started();
    const ann: WebchatEvent[] = [];
    const bob: WebchatEvent[] = [];
    webchat.subscribe('ann', (event) => ann.push(event));
    const unsubscribeBob = webchat.subscribe('bob', (event) => bob.push(event));
    webchat.sendDelta?.(route('ann', 't1'), { id: 'r1', delta: 'he' });
    await webchat.send(route('ann', 't1'), { id: 'r1', text: 'hello' });
    expect(ann).toEqual([
      { type: 'reply.delta', id: 'r1', delta: 'he', thread: 't1' },
      { type: 'reply', id: 'r1', text: 'hello', thread: 't1' },
    ]);
    expect(bob).toEqual([]);
    unsubscribeBob();
    await webchat.send(route('bob'), { id: 'r2', text: 'gone' });
    expect(bob).toEqual([]);
  });

  it('holds the last 20 notices for a user with no page open, delivered once on the next subscribe', async () => {
    const { webchat } = await started();
    for (let index = 0; index < 25; index += 1)
      await webchat.send(route('ann'), { id: `n${index}`, text: `notice ${index}`, notice: true });
    await webchat.send(route('ann'), { id: 'plain', text: 'not a notice' });
    const first: WebchatEvent[] = [];
    webchat.subscribe('ann', (event) => first.push(event));
    expect(first.map((event) => (event.type === 'reply' ? event.id : event.type))).toEqual(
      Array.from({ length: 20 }, (_, index) => `n${index + 5}`),
    );
    const second: WebchatEvent[] = [];
    webchat.subscribe('ann', (event) => second.push(event));
    expect(second).toEqual([]);
  });

  it('tells every open page it is closing on stop, and refuses messages after', async () => {
    const { webchat } = await started();
    const events: WebchatEvent[] = [];
    webchat.subscribe('ann', (event) => events.push(event));
    webchat.subscribe('bob', (event) => events.push(event));
    await webchat.stop();
    expect(events).toEqual([{ type: 'closing' }, { type: 'closing' }]);
    await expect(webchat.receive({ text: 'late', user: 'ann' })).rejects.toMatchObject({
      code: 'GATEWAY_STATE',
    });
  });

  it('streams a reply with its buttons, and holds one for a user with no page open', async () => {
    const { webchat } = await started();
    const ann: WebchatEvent[] = [];
    webchat.subscribe('ann', (event) => ann.push(event));
    await webchat.send(route('ann', 't1'), { id: 'q1', text: 'Run shell.exec?', actions: BUTTONS });
    expect(ann).toEqual([
      { type: 'reply', id: 'q1', text: 'Run shell.exec?', thread: 't1', actions: BUTTONS },
    ]);

    // A request posted to a user whose page is closed waits for the page, like a notice.
    await webchat.send(route('bob'), { id: 'q2', text: 'Run shell.exec?', actions: BUTTONS });
    await webchat.send(route('bob'), { id: 'plain', text: 'not kept' });
    const bob: WebchatEvent[] = [];
    webchat.subscribe('bob', (event) => bob.push(event));
    expect(bob).toEqual([{ type: 'reply', id: 'q2', text: 'Run shell.exec?', actions: BUTTONS }]);
  });

  it("dispatches a click as an action of the user's direct chat and shows the answer on the user's pages", async () => {
    const { webchat, heard } = await started();
    const ann: WebchatEvent[] = [];
    const bob: WebchatEvent[] = [];
    webchat.subscribe('ann', (event) => ann.push(event));
    webchat.subscribe('bob', (event) => bob.push(event));
    const result = await webchat.receiveClick({
      action: 'approval:a1:approve',
      user: 'ann',
      thread: 't1',
      reply: 'q1',
    });
    expect(result.replies.map((reply) => reply.text)).toEqual(['Approved by webchat:ann']);
    expect(heard).toEqual([
      {
        channel: 'webchat',
        chatType: 'direct',
        chatId: 'ann',
        threadId: 't1',
        senderId: 'webchat:ann',
        text: '',
        action: 'approval:a1:approve',
        messageId: expect.any(String),
      },
    ]);
    expect(ann).toEqual([{ type: 'reply.decided', id: 'q1', text: 'Approved by webchat:ann', thread: 't1' }]);
    expect(bob).toEqual([]);

    // Without the clicked reply's id there is nothing to update: the answer goes to the caller only.
    await webchat.receiveClick({ action: 'approval:a1:deny', user: 'ann' });
    expect(ann).toHaveLength(1);
    expect(heard[1]).toMatchObject({ chatId: 'ann', action: 'approval:a1:deny', text: '' });
    expect(heard[1]).not.toHaveProperty('threadId');
  });

  it('refuses clicks before start and after stop with GATEWAY_STATE', async () => {
    const webchat = createWebchatAdapter({ logger });
    await expect(webchat.receiveClick({ action: 'x', user: 'ann' })).rejects.toMatchObject({
      code: 'GATEWAY_STATE',
    });
    const { webchat: stopped, heard } = await started();
    await stopped.stop();
    await expect(stopped.receiveClick({ action: 'x', user: 'ann' })).rejects.toMatchObject({
      code: 'GATEWAY_STATE',
    });
    expect(heard).toEqual([]);
  });
});
