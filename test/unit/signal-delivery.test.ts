import { describe, expect, it } from 'vitest';
import { createTurnPort } from '../../src/app/turn-port.js';
import { validateConfig } from '../../src/base/config/index.js';
import { SwitchboardError } from '../../src/base/errors/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import type { DeliveryRoute, DispatchResult } from '../../src/base/messages/index.js';
import type { Router } from '../../src/engine/routing/index.js';
import {
  createSignalDelivery,
  createSignalQueue,
  type SignalTurns,
  type WakeTurnRequest,
} from '../../src/engine/signals/index.js';
import { createSessionStore } from '../../src/records/sessions/index.js';
import { createStore } from '../../src/records/store/index.js';
import { outboundTo } from '../fakes/outbound.js';

/**
 * Signal delivery and the turn port, in-process: a memory store, a scripted router side (each
 * wake turn ends when the test says so), a delivery that records posts.
 */

const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });

async function rig(busy: readonly string[] = []) {
  const store = await createStore({ url: 'memory://', stateDir: '.', logger });
  const checked = validateConfig({
    agents: { main: {}, ops: {} },
    routes: { '#ops': 'slack:C1' },
  });
  if (!checked.ok) throw new Error(JSON.stringify(checked.error));
  const woken: { request: WakeTurnRequest; end(result: Pick<DispatchResult, 'status'>): void }[] = [];
  const turns: SignalTurns = {
    async startTurn(request) {
      let end: (result: DispatchResult) => void = () => {};
      const done = new Promise<DispatchResult>((resolve) => {
        end = resolve;
      });
      woken.push({
        request,
        end: (result) => end({ sessionKey: request.sessionKey, replies: [], ...result }),
      });
      return { done };
    },
    agentBusy: (agentId) => busy.includes(agentId),
  };
  const posted: [DeliveryRoute, string][] = [];
  const signals = createSignalDelivery({
    config: checked.value,
    store,
    sessions: createSessionStore({ store }),
    turns,
    outboundFor: outboundTo({ reply: (route, message) => void posted.push([route, message.text]) }),
    logger,
  });
  const pendingFor = async (agentId: string) =>
    (await createSignalQueue({ store, logger }).take(agentId)).map((signal) => signal.kind);
  return { signals, woken, posted, pendingFor };
}

const message = { id: 'msg_1', sender: 'ops', priority: 'P1' as const, body: 'deploy done' };

describe('signal delivery', () => {
  it('sends a message to an agent as a message.created signal, to a route as a post, and refuses a non-agent', async () => {
    const { signals, posted, pendingFor } = await rig();
    expect(await signals.send({ ...message, recipient: 'main' })).toEqual({ ok: true });
    expect(await pendingFor('main')).toEqual(['message.created']);
    expect(await signals.send({ ...message, channel: '#ops' })).toEqual({ ok: true });
    expect(posted).toEqual([[{ channel: 'slack', chatType: 'channel', chatId: 'C1' }, 'ops: deploy done']]);
    expect(await signals.send({ ...message, recipient: 'nobody' })).toEqual({
      ok: false,
      reason: 'recipient nobody is not an agent (agents: main, ops; "user" for the human)',
    });
    await expect(signals.send({ ...message, channel: '#nowhere' })).rejects.toThrow(
      'unknown route #nowhere (routes: #ops)',
    );
  });

  it('wakes an agent in its main session and forgets the signals once the turn has ended', async () => {
    const { signals, woken, pendingFor } = await rig();
    await signals.record({ kind: 'nudge', targetAgent: 'ops', payload: 1 }, 'test');
    const batch = await signals.queue.take('ops');
    await signals.wake('ops', batch);
    expect(woken[0]?.request).toMatchObject({
      sessionKey: 'agent:ops:main',
      agentId: 'ops',
      route: { channel: 'internal', chatType: 'direct', chatId: 'agent:ops:main' },
      senderId: 'system:signals',
    });
    expect(woken[0]?.request.entry.text).toContain('"kind":"nudge"');
    woken[0]?.end({ status: 'done' });
    await signals.settled();
    expect(await pendingFor('ops')).toEqual([]);
  });

  it('keeps the signals of a wake turn the stop interrupts, for the next start', async () => {
    const { signals, woken, pendingFor } = await rig();
    await signals.record({ kind: 'nudge', targetAgent: 'ops' }, 'test');
    await signals.wake('ops', await signals.queue.take('ops'));
    signals.stop();
    woken[0]?.end({ status: 'interrupted' });
    await signals.settled();
    expect(await pendingFor('ops')).toEqual(['nudge']);
  });

  it('shows an agent busy in any session as running in the roster', async () => {
    const { signals } = await rig(['ops']);
    expect(signals.agents().map(({ id, status }) => [id, status])).toEqual([
      ['main', 'idle'],
      ['ops', 'running'],
    ]);
  });
});

describe('the turn port', () => {
  const router = {
    startTurn: async () => ({ done: Promise.resolve({ sessionKey: 'k', replies: [] }) }),
    stopTurn: () => true,
    clearQueue: () => 2,
    agentBusy: () => true,
    sessionStatus: () => 'running',
    sessionDepth: () => 3,
  } as unknown as Router;

  it('refuses turns before the router is connected, and reads idle status', () => {
    const { turns } = createTurnPort();
    expect(() => turns.stopTurn('k', 'why')).toThrow(SwitchboardError);
    expect(() => turns.agentBusy('main')).toThrow('the gateway is not running');
    expect(turns.sessionStatus('k')).toBe('idle');
    expect(turns.sessionDepth('k')).toBe(0);
  });

  it('hands every call to the router once connected, and is connected once', async () => {
    const port = createTurnPort();
    port.connect(router);
    expect(port.turns.stopTurn('k', 'why')).toBe(true);
    expect(port.turns.clearQueue('k')).toBe(2);
    expect(port.turns.agentBusy('main')).toBe(true);
    expect(port.turns.sessionStatus('k')).toBe('running');
    expect(port.turns.sessionDepth('k')).toBe(3);
    await expect(port.turns.startTurn({} as never)).resolves.toMatchObject({ done: expect.any(Promise) });
    expect(() => port.connect(router)).toThrow('already connected');
  });
});
