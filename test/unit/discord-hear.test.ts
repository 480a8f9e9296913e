import { describe, expect, it } from 'vitest';
import {
  type HearCandidate,
  type HearSettings,
  shouldHear,
} from '../../src/surfaces/channels/discord/index.js';
import { splitMessage } from '../../src/surfaces/channels/split-message.js';

const BOT = '100';
const state = { botId: BOT, activeThreads: new Set(['700']) };
const settings: HearSettings = {
  guilds: [],
  channels: {},
  requireMention: true,
  dmPolicy: 'allowlist',
  allowFrom: ['200'],
  allowBots: false,
};
const inChannel: HearCandidate = {
  authorId: '200',
  authorIsBot: false,
  guildId: '900',
  channelId: '500',
  mentionsBot: true,
};
const direct: HearCandidate = { authorId: '200', authorIsBot: false, channelId: '600', mentionsBot: false };

describe('shouldHear', () => {
  it('never hears the bot itself, even with allowBots', () => {
    expect(
      shouldHear({ ...inChannel, authorId: BOT, authorIsBot: true }, { ...settings, allowBots: true }, state),
    ).toBe(false);
  });

  it('hears other bots only with allowBots', () => {
    const bot = { ...inChannel, authorId: '300', authorIsBot: true };
    expect(shouldHear(bot, settings, state)).toBe(false);
    expect(shouldHear(bot, { ...settings, allowBots: true }, state)).toBe(true);
  });

  it('needs a mention in channels unless requireMention is off, globally or per channel', () => {
    const plain = { ...inChannel, mentionsBot: false };
    expect(shouldHear(inChannel, settings, state)).toBe(true);
    expect(shouldHear(plain, settings, state)).toBe(false);
    expect(shouldHear(plain, { ...settings, requireMention: false }, state)).toBe(true);
    expect(shouldHear(plain, { ...settings, channels: { '500': { requireMention: false } } }, state)).toBe(
      true,
    );
    const overridden = { ...settings, requireMention: false, channels: { '500': { requireMention: true } } };
    expect(shouldHear(plain, overridden, state)).toBe(false);
  });

  it('hears without a mention in a thread the bot takes part in, and only there', () => {
    const plain = { ...inChannel, mentionsBot: false };
    expect(shouldHear({ ...plain, threadId: '700' }, settings, state)).toBe(true);
    expect(shouldHear({ ...plain, threadId: '701' }, settings, state)).toBe(false);
    expect(shouldHear({ ...inChannel, threadId: '701' }, settings, state)).toBe(true);
  });

  it('applies the guild allowlist when it is not empty', () => {
    expect(shouldHear(inChannel, { ...settings, guilds: ['900'] }, state)).toBe(true);
    expect(shouldHear(inChannel, { ...settings, guilds: ['901'] }, state)).toBe(false);
  });

  it('applies the channel allowlist when it is not empty; a thread passes through its parent or itself', () => {
    const listed = { ...settings, channels: { '500': {} } };
    expect(shouldHear(inChannel, listed, state)).toBe(true);
    expect(shouldHear({ ...inChannel, channelId: '501' }, listed, state)).toBe(false);
    expect(shouldHear({ ...inChannel, threadId: '701' }, listed, state)).toBe(true);
    const threadListed = { ...settings, channels: { '701': {} } };
    expect(shouldHear({ ...inChannel, channelId: '501', threadId: '701' }, threadListed, state)).toBe(true);
  });

  it('follows dmPolicy and allowFrom for direct messages, ignoring the channel settings', () => {
    const stranger = { ...direct, authorId: '201' };
    expect(shouldHear(direct, settings, state)).toBe(true);
    expect(shouldHear(stranger, settings, state)).toBe(false);
    expect(shouldHear(stranger, { ...settings, dmPolicy: 'open' }, state)).toBe(true);
    expect(shouldHear(direct, { ...settings, dmPolicy: 'disabled' }, state)).toBe(false);
    expect(shouldHear(direct, { ...settings, guilds: ['900'], channels: { '500': {} } }, state)).toBe(true);
  });
});

describe('splitMessage at the Discord limit', () => {
  it('moves a code fence that would cross the 2000-character boundary to the next part', () => {
    const prose = Array.from({ length: 15 }, () => 'p'.repeat(99)).join('\n');
    const fence = ['```python', ...Array.from({ length: 10 }, () => 'c'.repeat(99)), '```'].join('\n');
    expect(splitMessage(`${prose}\n\n${fence}`, 2000)).toEqual([prose, fence]);
  });

  it('closes and reopens a fence longer than 2000 characters', () => {
    const lines = Array.from({ length: 50 }, (_, index) => `${index} ${'z'.repeat(90)}`);
    const parts = splitMessage(['```js', ...lines, '```'].join('\n'), 2000);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(2000);
      expect(part.startsWith('```js\n')).toBe(true);
      expect(part.endsWith('\n```')).toBe(true);
    }
    expect(parts.flatMap((part) => part.split('\n').slice(1, -1))).toEqual(lines);
  });
});
