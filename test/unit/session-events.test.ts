import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/index.js';
import {
  createSessionEvents,
  createSessionStore,
  type QueueStatus,
  type SessionEvent,
} from '../../src/sessions/index.js';
import { createStore } from '../../src/store/index.js';

const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });
const ROUTE = { channel: 'webchat', chatType: 'direct', chatId: 'ann' } as const;
const KEY = 'agent:main:webchat:direct:ann';

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The bus over a memory store, with a status the test sets. */
async function rig() {
  const statuses = new Map<string, QueueStatus>();
  const events = createSessionEvents({ status: (key) => statuses.get(key) ?? 'idle', pollMs: 5 });
  const store = await createStore({ url: 'memory://', stateDir: '.', logger });
  const sessions = events.observe(createSessionStore({ store }));
  const seen: SessionEvent[] = [];
  const statusesOf = () => seen.flatMap((event) => (event.type === 'session' ? [event.summary.status] : []));
  return { statuses, events, sessions, seen, statusesOf, close: () => store.close() };
}

describe('the session events bus', () => {
  it('reports appends as entry and session events, and each status change of a written session', async () => {
    const { statuses, events, sessions, seen, statusesOf, close } = await rig();
    events.subscribe((event) => seen.push(event));
    await sessions.ensure(KEY, { agentId: 'main', route: ROUTE });
    statuses.set(KEY, 'queued');
    await until(() => statusesOf().includes('queued'), 'queued');
    statuses.set(KEY, 'running');
    const entry = await sessions.append(KEY, { role: 'user', text: 'hi' });
    await until(() => statusesOf().includes('running'), 'running');
    statuses.set(KEY, 'idle');
    await until(() => statusesOf().at(-1) === 'idle' && statusesOf().length >= 4, 'idle');
    expect(seen.find((event) => event.type === 'entry')).toEqual({ type: 'entry', key: KEY, entry });
    // No change is reported twice: idle (ensure), queued, running (the append), idle.
    expect(statusesOf()).toEqual(['idle', 'queued', 'running', 'idle']);
    const last = seen.at(-1);
    expect(last?.type === 'session' && last.summary).toMatchObject({ key: KEY, transcriptLength: 1 });
    events.close();
    await close();
  });

  it('tells every listener even when one throws, and nothing once they are gone', async () => {
    const { events, sessions, seen, close } = await rig();
    events.subscribe(() => {
      throw new Error('a closed stream');
    });
    const stop = events.subscribe((event) => seen.push(event));
    await sessions.ensure(KEY, { agentId: 'main', route: ROUTE });
    await sessions.append(KEY, { role: 'user', text: 'one' });
    await until(() => seen.some((event) => event.type === 'entry'), 'the entry');
    stop();
    const count = seen.length;
    await sessions.append(KEY, { role: 'user', text: 'two' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toHaveLength(count);
    // The write itself went through the observed store as always.
    expect((await sessions.transcript(KEY)).map((entry) => entry.text)).toEqual(['one', 'two']);
    events.close();
    await close();
  });
});
