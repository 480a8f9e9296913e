import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { countResources, openFileDescriptors, openFiles } from '../helpers/resources.js';
import { openEvents } from '../helpers/webchat-events.js';

let gateway: TestGateway | undefined;

afterEach(async () => {
  await gateway?.dispose();
  gateway = undefined;
});

describe('the web chat event stream', () => {
  it("streams a user's replies, per thread, and ends cleanly when the gateway restarts", async () => {
    gateway = await startTestGateway();
    await gateway.send('open every store connection');
    // The store's checkpoint thread opens the WAL at its first checkpoint, up to 200 ms after
    // the first commit: until both connections hold it, the count is not the settled one.
    await expect.poll(() => openFiles('.sqlite-wal'), { timeout: 5000 }).toBe(2);
    await expect.poll(() => countResources('TCPSocketWrap')).toBe(0);
    const timersBefore = countResources('Timeout');
    const filesBefore = openFileDescriptors();

    const alice = await openEvents(gateway, 'alice');
    const bob = await openEvents(gateway, 'bob');
    await expect.poll(() => alice.events.map((event) => event.type)).toEqual(['ready']);

    const direct = await gateway.send('hello', 'alice');
    const threaded = await gateway.send('/whoami', 'alice', 'incident-7');
    await expect.poll(() => alice.events.length).toBe(3);
    expect(alice.events.slice(1)).toEqual([
      {
        type: 'reply',
        data: { type: 'reply', id: direct.body.replies[0].id, text: direct.body.replies[0].text },
      },
      {
        type: 'reply',
        data: {
          type: 'reply',
          id: threaded.body.replies[0].id,
          origin: 'command',
          text: 'You are webchat:alice (not an owner).',
          thread: 'incident-7',
        },
      },
    ]);
    expect(bob.events.map((event) => event.type)).toEqual(['ready']);

    await gateway.restart();
    await Promise.all([alice.ended, bob.ended]);
    // The heartbeat timers and sockets of both streams are gone with them.
    await expect.poll(() => countResources('TCPSocketWrap')).toBe(0);
    expect(countResources('Timeout')).toBe(timersBefore);
    // As before the streams: the store's checkpoint thread (and its connection) starts with the
    // first commit, and SQLite opens a connection's WAL file on its first statement.
    await gateway.send('open every store connection');
    await expect.poll(() => openFiles('.sqlite-wal'), { timeout: 5000 }).toBe(2);
    await expect.poll(() => countResources('TCPSocketWrap')).toBe(0);
    // May only not grow: the baseline can hold a descriptor SQLite had open for a moment.
    await expect.poll(openFileDescriptors, { timeout: 5000 }).toBeLessThanOrEqual(filesBefore);
  });

  it('refuses a malformed user name with 400 naming the field', async () => {
    gateway = await startTestGateway();
    const response = await gateway.request('GET', '/api/webchat/events?user=no%20spaces');
    expect(response.status).toBe(400);
    expect(response.body.field).toBe('user');
  });
});
