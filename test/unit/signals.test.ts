import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/base/config/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import type { DeliveryRoute } from '../../src/base/messages/index.js';
import {
  createScheduler,
  createSignalDelivery,
  createSignalQueue,
  type Signal,
} from '../../src/engine/signals/index.js';
import { createSessionStore } from '../../src/records/sessions/index.js';
import { createStore } from '../../src/records/store/index.js';
import { outboundTo } from '../fakes/outbound.js';

const logLines: string[] = [];
const { logger } = createLogger({
  level: 'info',
  destination: { write: (line: string) => void logLines.push(line) },
});

async function queue() {
  const store = await createStore({ url: 'memory://', stateDir: '.', logger });
  return createSignalQueue({ store, logger });
}

describe('the signal queue', () => {
  it('delivers P0/P1 together, P2/P3 one at a time, most urgent first', async () => {
    const signals = await queue();
    await signals.record({ kind: 'a', targetAgent: 'pm', priority: 'P3' }, 'test');
    await signals.record({ kind: 'b', targetAgent: 'pm', priority: 'P2' }, 'test');
    await signals.record({ kind: 'c', targetAgent: 'pm', priority: 'P1' }, 'test');
    await signals.record({ kind: 'd', targetAgent: 'pm', priority: 'P0' }, 'test');
    const kinds = async () => (await signals.take('pm')).map((signal) => signal.kind);
    expect(await kinds()).toEqual(['d', 'c']);
    expect(await kinds()).toEqual(['b']);
    expect(await kinds()).toEqual(['a']);
    expect(await kinds()).toEqual([]);
  });

  it('delivers one P2 (and one P3) per wake-up, as Suzumio does: same-kind P2/P3 signals are not merged; P0/P1 are', async () => {
    const signals = await queue();
    await signals.record({ kind: 'nudge', targetAgent: 'pm', priority: 'P3', payload: 1 }, 'test');
    await signals.record({ kind: 'nudge', targetAgent: 'pm', priority: 'P2', payload: 2 }, 'test');
    await signals.record({ kind: 'nudge', targetAgent: 'pm', priority: 'P2', payload: 3 }, 'test');
    await signals.record({ kind: 'nudge', targetAgent: 'qa', priority: 'P2', payload: 4 }, 'test');
    await signals.record({ kind: 'alarm', targetAgent: 'ops', priority: 'P1', payload: 5 }, 'test');
    await signals.record({ kind: 'alarm', targetAgent: 'ops', priority: 'P1', payload: 6 }, 'test');
    const payloads = async (agent: string) => (await signals.take(agent)).map((signal) => signal.payload);
    expect(await payloads('pm')).toEqual([2]);
    expect(await payloads('pm')).toEqual([3]);
    expect(await payloads('pm')).toEqual([1]);
    expect(await payloads('pm')).toEqual([]);
    expect(signals.hasPending('qa')).toBe(true);
    // P0/P1 are all delivered together anyway: a repeat is merged, every payload kept.
    expect(await signals.take('ops')).toEqual([
      expect.objectContaining({ kind: 'alarm', payload: 6, payloads: [5, 6], merged: 1 }),
    ]);
  });

  it('keeps delivered signals as `delivered` (the newest 200, across a restart) with when', async () => {
    const store = await createStore({ url: 'memory://', stateDir: '.', logger });
    const first = createSignalQueue({ store, logger });
    for (let n = 0; n < 205; n += 1)
      await first.record({ kind: 'tick', targetAgent: 'pm', priority: 'P3', payload: n }, 'test');
    for (let n = 0; n < 205; n += 1) await first.acknowledge(await first.take('pm'));
    await first.record({ kind: 'tick', targetAgent: 'pm', priority: 'P3', payload: 'waiting' }, 'test');
    const second = createSignalQueue({ store, logger });
    await second.load();
    const rows = second.rows();
    const delivered = rows.filter((row) => row.status === 'delivered');
    expect(delivered).toHaveLength(200);
    expect(delivered.map((row) => row.signal.payload)).toContain(204);
    expect(delivered.map((row) => row.signal.payload)).not.toContain(4);
    expect(delivered.every((row) => typeof row.deliveredAt === 'string')).toBe(true);
    expect(rows.filter((row) => row.status === 'pending').map((row) => row.signal.payload)).toEqual([
      'waiting',
    ]);
    const listed = await second.list();
    expect(listed.filter((signal) => signal.status === 'delivered')).toHaveLength(200);
  });

  it('keeps who caused a signal, stored: never merges two payers, and a wake takes one payer', async () => {
    const store = await createStore({ url: 'memory://', stateDir: '.', logger });
    const first = createSignalQueue({ store, logger });
    const message = (payload: string) => ({
      kind: 'message',
      targetAgent: 'pm',
      priority: 'P1' as const,
      payload,
    });
    await first.record(message('from bob'), 'message:main', 'slack:UBOB');
    await first.record(message('from carol'), 'message:main', 'slack:UCAROL');
    await first.record(message('bob again'), 'message:main', 'slack:UBOB');
    // The next start reads them from the store.
    const again = createSignalQueue({ store, logger });
    const taken = async () =>
      (await again.take('pm')).map((signal) => [signal.chargedTo, signal.payloads ?? signal.payload]);
    expect(await taken()).toEqual([['slack:UBOB', ['from bob', 'bob again']]]);
    expect(await taken()).toEqual([['slack:UCAROL', 'from carol']]);
  });

  it('keeps taken signals stored until acknowledged: a new queue on the store delivers them again', async () => {
    const store = await createStore({ url: 'memory://', stateDir: '.', logger });
    const first = createSignalQueue({ store, logger });
    await first.record({ kind: 'wake', targetAgent: 'pm', priority: 'P1', payload: 'a' }, 'test');
    const taken = await first.take('pm');
    expect(taken.map((signal) => signal.payload)).toEqual(['a']);
    expect(await first.take('pm')).toEqual([]);
    // The process stops before the wake turn ends: the next one has it again.
    const second = createSignalQueue({ store, logger });
    expect((await second.take('pm')).map((signal) => signal.payload)).toEqual(['a']);
    await second.acknowledge(taken);
    expect(await createSignalQueue({ store, logger }).take('pm')).toEqual([]);
  });

  it('refuses a signal for a target that is not an agent, naming it', async () => {
    const store = await createStore({ url: 'memory://', stateDir: '.', logger });
    const signals = createSignalQueue({ store, logger, agents: ['pm', 'qa'] });
    expect(await signals.record({ kind: 'x', targetAgent: 'pn' }, 'test')).toEqual({
      ok: false,
      error: 'target agent pn is not an agent (agents: pm, qa)',
    });
    expect(await signals.targets()).toEqual([]);
  });

  it('refuses a bad priority and keeps untargeted signals out of the queue', async () => {
    const signals = await queue();
    expect(await signals.record({ kind: 'x', targetAgent: 'pm', priority: 'P9' as never }, 'test')).toEqual({
      ok: false,
      error: 'signal priority must be one of P0, P1, P2, P3',
    });
    await signals.record({ kind: 'shipped', usefulEffect: 'released 1.2' }, 'test');
    expect(await signals.targets()).toEqual([]);
    expect(logLines.some((line) => line.includes('useful effect recorded'))).toBe(true);
  });
});

describe('the scheduler tick', () => {
  it('wakes idle agents first, then runs every hook; a throwing hook does not stop the tick', async () => {
    const signals = await queue();
    await signals.record({ kind: 'wake', targetAgent: 'pm' }, 'test');
    await signals.record({ kind: 'wake', targetAgent: 'busy' }, 'test');
    const woken: [string, Signal[]][] = [];
    const recorded: string[] = [];
    const scheduler = createScheduler({
      tickMs: 1000,
      project: 'default',
      queue: signals,
      agents: () =>
        ['pm', 'busy'].map((id) => ({
          id,
          displayName: id,
          role: 'agent',
          status: id === 'busy' ? ('running' as const) : ('idle' as const),
          activeActivationId: null,
          updatedAt: '',
          modelAlive: id === 'busy',
        })),
      wake: async (agentId, batch) => void woken.push([agentId, batch]),
      hooks: [
        {
          toolpackId: 'broken',
          run: async () => {
            throw new Error('hook exploded');
          },
        },
        {
          toolpackId: 'plan',
          run: async (context) => {
            const pending = (context.hasPendingSignalsForAgent as (id: string) => boolean)('busy');
            return [
              { kind: 'plan.continuation_nudge', targetAgent: 'pm', payload: { busyHasPending: pending } },
            ];
          },
        },
      ],
      record: async (signal, source) => void recorded.push(`${source} ${signal.kind}`),
      logger,
    });
    await scheduler.tick();
    expect(woken.map(([agent, batch]) => [agent, batch.map((signal) => signal.kind)])).toEqual([
      ['pm', ['wake']],
    ]);
    expect(recorded).toEqual(['toolpack:plan plan.continuation_nudge']);
    expect(
      logLines.some((line) => line.includes('scheduler hook failed') && line.includes('hook exploded')),
    ).toBe(true);
    expect(signals.hasPending('busy')).toBe(true);
    await scheduler.stop();
  });
});

describe('messages and signals for `user`', () => {
  async function signalsFor(owners: string[]) {
    const store = await createStore({ url: 'memory://', stateDir: '.', logger });
    const checked = validateConfig({ owners, agents: { main: {}, ops: {} } });
    if (!checked.ok) throw new Error(JSON.stringify(checked.error));
    const sessions = createSessionStore({ store });
    const posted: [DeliveryRoute, string][] = [];
    const noTurn = () => {
      throw new Error('no turn expected');
    };
    const signals = createSignalDelivery({
      config: checked.value,
      store,
      sessions,
      turns: { startTurn: noTurn, agentBusy: noTurn },
      outboundFor: outboundTo({ reply: (route, message) => void posted.push([route, message.text]) }),
      logger,
    });
    return { signals, sessions, posted };
  }
  const message = {
    id: 'msg_1',
    sender: 'ops',
    recipient: 'user',
    priority: 'P2' as const,
    body: 'deployed',
  };

  it('a message to an agent is a `message.created` signal, as Suzumio names it', async () => {
    const { signals } = await signalsFor([]);
    expect(await signals.send({ ...message, recipient: 'main' })).toEqual({ ok: true });
    expect((await signals.queue.list()).map((signal) => [signal.kind, signal.targetAgent])).toEqual([
      ['message.created', 'main'],
    ]);
  });

  it('go to the coordinator’s latest chat; without one, to each owner; without owners, refused', async () => {
    const withOwners = await signalsFor(['slack:U1', 'webchat:local']);
    expect(await withOwners.signals.send(message)).toEqual({ ok: true });
    await withOwners.signals.record(
      { kind: 'build.done', targetAgent: 'user', payload: { ok: 1 } },
      'toolpack:ci',
    );
    expect(withOwners.posted).toEqual([
      [{ channel: 'slack', chatType: 'direct', chatId: 'U1' }, 'ops: deployed'],
      [{ channel: 'webchat', chatType: 'direct', chatId: 'local' }, 'ops: deployed'],
      [{ channel: 'slack', chatType: 'direct', chatId: 'U1' }, 'build.done: {"ok":1}'],
      [{ channel: 'webchat', chatType: 'direct', chatId: 'local' }, 'build.done: {"ok":1}'],
    ]);

    // Once the human has talked to the coordinator (the default agent), there.
    const thread = { channel: 'slack' as const, chatType: 'channel' as const, chatId: 'C9', threadId: '1.2' };
    await withOwners.sessions.ensure('agent:ops:slack:channel:C7', {
      agentId: 'ops',
      route: { channel: 'slack', chatType: 'channel', chatId: 'C7' },
    });
    await withOwners.sessions.ensure('agent:main:slack:channel:C9:thread:1.2', {
      agentId: 'main',
      route: thread,
    });
    withOwners.posted.splice(0);
    expect(await withOwners.signals.send(message)).toEqual({ ok: true });
    expect(withOwners.posted).toEqual([[thread, 'ops: deployed']]);

    const nobody = await signalsFor([]);
    expect(await nobody.signals.send(message)).toEqual({
      ok: false,
      reason: 'no chat reaches the user: agent main has no chat session yet and owners lists no one',
    });
    expect(nobody.posted).toEqual([]);
  });
});
