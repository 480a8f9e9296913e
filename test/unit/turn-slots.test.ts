import { describe, expect, it } from 'vitest';
import { TurnSlots } from '../../src/engine/routing/index.js';

/** The global turn slots alone: the limit, the order, a wait given up by an abort. */

describe('turn slots', () => {
  it('never holds more than the limit; a resuming turn is served before turns waiting to start', async () => {
    const slots = new TurnSlots(1);
    const first = await slots.acquire(new AbortController().signal);
    const order: string[] = [];
    const waitingToStart = slots.acquire(new AbortController().signal).then((hold) => {
      order.push('new turn');
      return hold;
    });
    const takeAgain = first.yield();
    // The slot went to the waiting turn at once.
    const started = await waitingToStart;
    expect(slots.held).toBe(1);
    const later = slots.acquire(new AbortController().signal).then((hold) => {
      order.push('later turn');
      return hold;
    });
    const resumed = takeAgain().then(() => order.push('resumed'));
    started.end();
    await resumed;
    expect(order).toEqual(['new turn', 'resumed']);
    expect(slots.held).toBe(1);
    first.end();
    (await later).end();
    expect(order).toEqual(['new turn', 'resumed', 'later turn']);
    expect(slots.held).toBe(0);
  });

  it('two calls of one turn waiting at once give back one slot and take one again', async () => {
    const slots = new TurnSlots(2);
    const turn = await slots.acquire(new AbortController().signal);
    const first = turn.yield();
    const second = turn.yield();
    expect(slots.held).toBe(0);
    await second();
    expect(slots.held).toBe(1);
    await first();
    expect(slots.held).toBe(1);
    turn.end();
    expect(slots.held).toBe(0);
  });

  it('gives up a resume when the turn is aborted, and an ended hold frees nothing twice', async () => {
    const slots = new TurnSlots(1);
    const stop = new AbortController();
    const first = await slots.acquire(stop.signal);
    const takeAgain = first.yield();
    const other = await slots.acquire(new AbortController().signal);
    const resumed = takeAgain();
    stop.abort(new Error('stopped'));
    await expect(resumed).rejects.toThrow('stopped');
    first.end();
    first.end();
    expect(slots.held).toBe(1);
    other.end();
    expect(slots.held).toBe(0);
    // A free slot is taken at once again.
    (await slots.acquire(new AbortController().signal)).end();
    expect(slots.held).toBe(0);
  });
});
