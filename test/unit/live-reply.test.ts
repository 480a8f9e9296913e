import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import {
  createEditBudget,
  createLiveReplies,
  createLiveReply,
  type LivePart,
} from '../../src/surfaces/channels/live-reply.js';

const logger = createLogger({ level: 'silent' }).logger;
const FENCE = /^\s*```/gm;

/** A platform in memory: posted messages by index, every call recorded; a post waits for `release`. */
function rig(limit = 200) {
  const messages: string[] = [];
  const calls: string[] = [];
  let release: () => void = () => {};
  let held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const live = createLiveReply<number>({
    limit,
    budget: createEditBudget({ max: 1000, windowMs: 1 }),
    budgetKey: 'm',
    logger,
    transport: {
      async post(part: LivePart) {
        calls.push('post');
        await held;
        messages.push(part.text);
        return messages.length - 1;
      },
      async edit(ref, part) {
        calls.push('edit');
        messages[ref] = part.text;
      },
      async remove(ref) {
        calls.push('remove');
        messages[ref] = '(deleted)';
      },
      retryAfter: () => undefined,
    },
  });
  return {
    live,
    messages,
    calls,
    release: () => {
      release();
      held = Promise.resolve();
    },
  };
}

describe('a live reply', () => {
  it('coalesces texts shown while a call is under way: only the newest is sent after it', async () => {
    const { live, messages, calls, release } = rig();
    let text = '';
    for (let index = 0; index < 20; index++) {
      text += `word${index} `;
      live.show(text);
    }
    release();
    await live.finish(text.trim());
    expect(messages).toEqual([text.trim()]);
    // The placeholder (the first word), then one edit with the newest text; the final text is
    // the same once trimmed, so it needs no call.
    expect(calls).toEqual(['post', 'edit']);
  });

  it('continues a long final text in more messages, each under the limit with its code fences closed', async () => {
    const { live, messages, release } = rig(200);
    release();
    const code = Array.from({ length: 30 }, (_, index) => `line ${index} of the script`).join('\n');
    const text = `Run this:\n\n\`\`\`sh\n${code}\n\`\`\`\n\nThen check.`;
    live.show(text.slice(0, 50));
    await live.finish(text);
    expect(messages.length).toBeGreaterThan(2);
    for (const message of messages) {
      expect(message.length).toBeLessThanOrEqual(200);
      expect((message.match(FENCE) ?? []).length % 2).toBe(0);
    }
    expect(messages.join('\n')).toContain('line 29 of the script');
    expect(messages.at(-1)).toContain('Then check.');
  });

  it('deletes what it showed when discarded, after the post under way, and shows nothing after', async () => {
    const { live, messages, calls, release } = rig();
    live.show('running shell.exec…');
    const discarded = live.discard();
    live.show('too late');
    release();
    await discarded;
    expect(messages).toEqual(['(deleted)']);
    expect(calls).toEqual(['post', 'remove']);
  });
});

describe('open live replies', () => {
  it("gives a route's status line to its next reply; a reply with buttons deletes it instead", async () => {
    const made: string[] = [];
    const discarded: string[] = [];
    const fake = (name: string) => () => {
      made.push(name);
      return { show: () => {}, finish: async () => {}, discard: async () => void discarded.push(name) };
    };
    const open = createLiveReplies();
    open.status('r', 'running session_status…', fake('status'));
    open.delta('r', 'a', 'Hello', fake('reply a'));
    expect(made).toEqual(['status']);
    expect(open.take('r', 'a', false)).toBeDefined();
    open.status('r', 'running shell.exec…', fake('status 2'));
    expect(open.take('r', 'approval', true)).toBeUndefined();
    // The approval request is posted anew and the status line above it goes: no "running …" left.
    expect(discarded).toEqual(['status 2']);
    expect(open.take('r', 'b', false)).toBeUndefined();
  });
});
