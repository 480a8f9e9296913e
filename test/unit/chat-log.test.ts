import { describe, expect, it } from 'vitest';
import {
  append,
  applyDecision,
  applyDelta,
  applyReply,
  EMPTY_LOG,
  prepend,
} from '../../web/src/chat/chat-log.js';

/** The chat page's log as data: each reply once, its buttons once, a decision kept on replay. */
describe('chat log', () => {
  const buttons = [
    { label: 'Approve', value: 'approval:a1:approve', style: 'primary' as const },
    { label: 'Deny', value: 'approval:a1:deny', style: 'danger' as const },
  ];

  it('adds the streamed parts up, and the final reply (stream or POST answer) replaces them once', () => {
    let log = applyDelta(EMPTY_LOG, 'r1', 'Count');
    log = applyDelta(log, 'r1', 'ing');
    expect(log.items).toEqual([
      { kind: 'agent', key: 'reply:r1', id: 'r1', text: 'Counting', streaming: true },
    ]);
    log = applyReply(log, { id: 'r1', text: 'Counting done.' });
    log = applyReply(log, { id: 'r1', text: 'Counting done.' });
    expect(log.items).toEqual([
      { kind: 'agent', key: 'reply:r1', id: 'r1', text: 'Counting done.', streaming: false },
    ]);
  });

  it('shows buttons once; their decision replaces them and stays when the reply comes again', () => {
    let log = applyReply(EMPTY_LOG, { id: 'q1', text: 'Run it?', actions: buttons });
    expect(log.items[0]).toMatchObject({ actions: buttons });
    log = applyDecision(log, 'q1', 'Approved by webchat:local');
    expect(log.items[0]).not.toHaveProperty('actions');
    log = applyReply(log, { id: 'q1', text: 'Run it?', actions: buttons });
    expect(log.items).toEqual([
      {
        kind: 'agent',
        key: 'reply:q1',
        id: 'q1',
        text: 'Run it?',
        streaming: false,
        decision: 'Approved by webchat:local',
      },
    ]);
    // Decided on another page before this one saw the request (a held notice shown later).
    const later = applyReply(applyDecision(EMPTY_LOG, 'q2', 'Denied'), {
      id: 'q2',
      text: 'Run?',
      actions: buttons,
    });
    expect(later.items[0]).toMatchObject({ decision: 'Denied' });
    expect(later.items[0]).not.toHaveProperty('actions');
  });

  it('puts earlier history above what is shown', () => {
    const log = append(EMPTY_LOG, { kind: 'user', key: 'sent:1', text: 'now', state: 'sent' });
    const earlier = prepend(log, [{ kind: 'user', key: 'h0', text: 'before', state: 'sent' }]);
    expect(earlier.items.map((item) => item.key)).toEqual(['h0', 'sent:1']);
  });
});
