import { describe, expect, it } from 'vitest';
import { createBotTurnLimit } from '../../src/surfaces/channels/bot-turns.js';
import { isBotReplyToUs } from '../../src/surfaces/channels/slack/hear.js';

describe('the bot turn limit', () => {
  it('allows `limit` bot turns in a row per conversation; a person resets the count', () => {
    const turns = createBotTurnLimit({ limit: 3 });
    expect([1, 2, 3, 4].map(() => turns.allow('C1:1', true))).toEqual([true, true, true, false]);
    // Another thread has its own count.
    expect(turns.allow('C1:2', true)).toBe(true);
    expect(turns.allow('C1:1', false)).toBe(true);
    expect(turns.allow('C1:1', true)).toBe(true);
  });

  it('keeps counts for the most recent conversations only', () => {
    const turns = createBotTurnLimit({ limit: 1, conversations: 2 });
    turns.allow('a', true);
    turns.allow('b', true);
    turns.allow('c', true);
    // `a` was forgotten (the oldest), `c` is remembered.
    expect(turns.allow('a', true)).toBe(true);
    expect(turns.allow('c', true)).toBe(false);
  });
});

describe("a Slack bot's reply to us", () => {
  const facts = {
    channelType: 'channel',
    channel: 'C1',
    user: 'UOTHER',
    botId: 'BOTHER',
    subtype: undefined,
    text: 'hi',
    threadTs: '1.1',
    mentionEvent: false,
  };
  it("is a bot's message in a thread under our message, not a person's, not under someone else's", () => {
    expect(isBotReplyToUs({ ...facts, parentUserId: 'UBOT' }, 'UBOT')).toBe(true);
    expect(isBotReplyToUs({ ...facts, parentUserId: 'U1' }, 'UBOT')).toBe(false);
    expect(isBotReplyToUs({ ...facts, botId: undefined, parentUserId: 'UBOT' }, 'UBOT')).toBe(false);
  });
});
