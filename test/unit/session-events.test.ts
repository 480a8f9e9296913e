import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import {
  createSessionEvents,
  createSessionStore,
  type QueueStatus,
  type SessionEvent,
} from '../../src/records/sessions/index.js';
import { createStore } from '../../src/records/store/index.js';
import { pollUntil } from '../helpers/process.js';

const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });
const ROUTE = { channel: 'webchat', chatType: 'direct', chatId: 'ann' } as const;
const KEY = 'agent:main:webchat:direct:ann';

/** The bus polls every 5 ms: the waits look as often. */
const SOON = { timeoutMs: 15_000, intervalMs: 5 };

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
    await pollUntil('queued', () => statusesOf().includes('queued'), SOON);
    statuses.set(KEY, 'running');
    const entry = await sessions.append(KEY, { role: 'user', text: 'hi' });
    await pollUntil('running', () => statusesOf().includes('running'), SOON);
    statuses.set(KEY, 'idle');
    await pollUntil('idle', () => statusesOf().at(-1) === 'idle' && statusesOf().length >= 4, SOON);
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
    await pollUntil('the entry', () => seen.some((event) => event.type === 'entry'), SOON);
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
