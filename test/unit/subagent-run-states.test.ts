import { describe, expect, it } from 'vitest';
import { createRunStates } from '../../src/engine/subagents/run-states.js';

/** The transitions of a sub-agent run's state, one by one (no store, no turns). */
describe('sub-agent run states', () => {
  it('queued → starting → running → ending → ended', () => {
    const states = createRunStates();
    expect(states.phase('r')).toBe('ended');
    states.queue('r');
    expect(states.take('r')).toBe(true);
    expect(states.phase('r')).toBe('starting');
    expect(states.steered('r')).toBeUndefined();
    states.running('r');
    expect(states.steered('r')).toEqual([]);
    expect(states.decideEnd('r')).toBeUndefined();
    expect(states.phase('r')).toBe('ending');
    expect(states.steered('r')).toBeUndefined();
    states.end('r');
    expect(states.phase('r')).toBe('ended');
  });

  it('a kill cancels a waiting run (it never takes its slot), stops a started one, and skips an ending one', () => {
    const states = createRunStates();
    states.queue('waiting');
    expect(states.kill('waiting', 'requested', true)).toBe('cancel');
    expect(states.take('waiting')).toBe(false);
    states.queue('started');
    states.take('started');
    expect(states.kill('started', 'requested', true)).toBe('stop');
    states.running('started');
    expect(states.killReason('started')).toBe('requested');
    expect(states.decideEnd('started')).toBe('requested');
    expect(states.kill('started', 'requested', false)).toBe('skip');
  });

  it('a run this process does not hold: cancelled when recorded queued, else stopped', () => {
    const states = createRunStates();
    expect(states.kill('left', 'requested', true)).toBe('cancel');
    expect(states.kill('left', 'requested', false)).toBe('stop');
  });

  it('silence sticks: a run once killed with an ancestor stays unannounced', () => {
    const states = createRunStates();
    states.queue('r');
    states.take('r');
    states.kill('r', 'with-ancestor', false);
    states.kill('r', 'requested', false);
    expect(states.decideEnd('r')).toBe('with-ancestor');
  });

  it('nothing takes a slot once closing', () => {
    const states = createRunStates();
    states.queue('r');
    states.close();
    expect(states.closing).toBe(true);
    expect(states.take('r')).toBe(false);
    expect(states.phase('r')).toBe('queued');
  });
});
