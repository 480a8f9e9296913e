import { describe, expect, it } from 'vitest';
import { pairingCandidate } from '../../src/surfaces/channels/slack/hear.js';
import {
  type HearSettings,
  type SlackEventFacts,
  shouldHear,
  stripMention,
} from '../../src/surfaces/channels/slack/index.js';
import { splitMessage } from '../../src/surfaces/channels/split-message.js';

const settings: HearSettings = {
  requireMention: true,
  channels: {},
  dmPolicy: 'allowlist',
  allowFrom: ['UALLOWED'],
  allowBots: false,
};
const threads = new Set(['C1:100.1']);
const state = {
  botUserId: 'UBOT',
  botId: 'BBOT',
  inThread: (c: string, t: string) => threads.has(`${c}:${t}`),
};
const event = (facts: Partial<SlackEventFacts>): SlackEventFacts => ({
  channelType: 'channel',
  channel: 'C1',
  user: 'U1',
  botId: undefined,
  subtype: undefined,
  text: 'hello',
  threadTs: undefined,
  mentionEvent: false,
  ...facts,
});

describe('shouldHear', () => {
  it('hears a channel message only when mentioned', () => {
    expect(shouldHear(event({}), settings, state)).toBe(false);
    expect(shouldHear(event({ text: '<@UBOT> hi' }), settings, state)).toBe(true);
    expect(shouldHear(event({ text: '<@UBOT|switchboard> hi' }), settings, state)).toBe(true);
    expect(shouldHear(event({ mentionEvent: true }), settings, state)).toBe(true);
    expect(shouldHear(event({ text: '<@UOTHER> hi' }), settings, state)).toBe(false);
  });

  it('hears replies in a thread the bot takes part in, not in other threads', () => {
    expect(shouldHear(event({ threadTs: '100.1' }), settings, state)).toBe(true);
    expect(shouldHear(event({ threadTs: '200.2' }), settings, state)).toBe(false);
    expect(shouldHear(event({ channel: 'C2', threadTs: '100.1' }), settings, state)).toBe(false);
  });

  it('applies requireMention per channel and the channel allowlist', () => {
    const open = { ...settings, requireMention: false, channels: { C1: { requireMention: true }, C2: {} } };
    expect(shouldHear(event({}), open, state)).toBe(false);
    expect(shouldHear(event({ channel: 'C2' }), open, state)).toBe(true);
    expect(shouldHear(event({ channel: 'C3', text: '<@UBOT> hi' }), open, state)).toBe(false);
    expect(shouldHear(event({ channel: 'C3' }), { ...settings, requireMention: false }, state)).toBe(true);
  });

  it('hears direct messages by dmPolicy and allowFrom', () => {
    const dm = (user: string) => event({ channelType: 'im', channel: 'D1', user });
    expect(shouldHear(dm('UALLOWED'), settings, state)).toBe(true);
    expect(shouldHear(dm('USTRANGER'), settings, state)).toBe(false);
    expect(shouldHear(dm('USTRANGER'), { ...settings, dmPolicy: 'open' }, state)).toBe(true);
    expect(shouldHear(dm('UALLOWED'), { ...settings, dmPolicy: 'disabled' }, state)).toBe(false);
  });

  it('never hears itself; other bots only with allowBots; never edits or joins', () => {
    const mention = { text: '<@UBOT> hi' };
    expect(shouldHear(event({ ...mention, user: 'UBOT' }), { ...settings, allowBots: true }, state)).toBe(
      false,
    );
    expect(
      shouldHear(
        event({ ...mention, botId: 'BBOT', user: undefined, subtype: 'bot_message' }),
        { ...settings, allowBots: true },
        state,
      ),
    ).toBe(false);
    const otherBot = event({ ...mention, user: 'U2', botId: 'B2' });
    expect(shouldHear(otherBot, settings, state)).toBe(false);
    expect(shouldHear(otherBot, { ...settings, allowBots: true }, state)).toBe(true);
    expect(shouldHear(event({ ...mention, subtype: 'message_changed' }), settings, state)).toBe(false);
    expect(shouldHear(event({ ...mention, subtype: 'channel_join' }), settings, state)).toBe(false);
  });

  it('hears nobody before the bot user id is known, unless Slack says it was mentioned', () => {
    const unknown = { ...state, botUserId: undefined };
    expect(shouldHear(event({ text: '<@UBOT> hi' }), settings, unknown)).toBe(false);
    expect(shouldHear(event({ mentionEvent: true }), settings, unknown)).toBe(true);
  });
});

describe('stripMention', () => {
  it('removes mentions of the bot only', () => {
    expect(stripMention('<@UBOT> what is up <@U2>?', 'UBOT')).toBe('what is up <@U2>?');
    expect(stripMention('hey <@UBOT|sb>, status', 'UBOT')).toBe('hey , status');
  });
});

describe('splitMessage', () => {
  it('keeps short texts whole and gives nothing for blank ones', () => {
    expect(splitMessage('hello', 100)).toEqual(['hello']);
    expect(splitMessage('  \n ', 100)).toEqual([]);
  });

  it('cuts on paragraph boundaries, every part within the limit', () => {
    const paragraph = (letter: string) => `${letter.repeat(30)}\n${letter.repeat(30)}`;
    const text = ['a', 'b', 'c', 'd'].map(paragraph).join('\n\n');
    const parts = splitMessage(text, 140);
    expect(parts).toEqual([
      `${paragraph('a')}\n\n${paragraph('b')}`,
      `${paragraph('c')}\n\n${paragraph('d')}`,
    ]);
  });

  it('cuts on line boundaries when there is no paragraph', () => {
    const lines = Array.from({ length: 10 }, (_, index) => `line ${index} ${'x'.repeat(20)}`);
    const parts = splitMessage(lines.join('\n'), 100);
    expect(parts.join('\n')).toBe(lines.join('\n'));
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(100);
  });

  it('never cuts inside a code fence that fits in a part', () => {
    const prose = 'p'.repeat(60);
    const fence = ['```ts', 'const a = 1;', 'const b = 2;', 'const c = 3;', '```'].join('\n');
    const parts = splitMessage(`${prose}\n${fence}\n${prose}`, 100);
    expect(parts).toContain(fence);
    for (const part of parts) expect(part.split('```').length % 2).toBe(1);
  });

  it('closes and reopens a fence longer than a part', () => {
    const code = Array.from({ length: 40 }, (_, index) => `call(${index});`);
    const text = `intro\n\`\`\`js\n${code.join('\n')}\n\`\`\`\noutro`;
    const parts = splitMessage(text, 120);
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(120);
      expect(part.split('```').length % 2).toBe(1);
    }
    expect(parts[1]?.startsWith('```js\n')).toBe(true);
    const rejoined = parts.join('\n').replace(/\n```\n```js\n/g, '\n');
    expect(rejoined).toBe(text);
  });

  it('splits a 5000-character text at 4000 in two parts', () => {
    const text = Array.from({ length: 100 }, () => 'y'.repeat(49)).join('\n');
    const parts = splitMessage(text, 4000);
    expect(parts).toHaveLength(2);
    expect(parts.join('\n')).toBe(text);
  });

  it('cuts a single overlong line at spaces (the cuts become line breaks)', () => {
    const text = Array.from({ length: 40 }, (_, index) => `word${index}`).join(' ');
    const parts = splitMessage(text, 64);
    expect(parts.join(' ').replace(/\s+/g, ' ')).toBe(text);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(64);
  });
});

describe('pairingCandidate', () => {
  const pairing: HearSettings = { ...settings, pairing: true };
  const dm = (facts: Partial<SlackEventFacts> = {}) => event({ channelType: 'im', channel: 'D1', ...facts });

  it('passes on a person’s direct message that allowFrom does not list, with pairing on and dmPolicy allowlist', () => {
    expect(pairingCandidate(dm(), pairing, state)).toBe(true);
    expect(pairingCandidate(dm(), settings, state)).toBe(false);
    expect(pairingCandidate(dm(), { ...pairing, dmPolicy: 'disabled' }, state)).toBe(false);
    expect(pairingCandidate(dm({ user: 'UALLOWED' }), pairing, state)).toBe(false);
  });

  it('passes on nothing but a person saying something in a direct message', () => {
    expect(pairingCandidate(event({}), pairing, state)).toBe(false);
    expect(pairingCandidate(dm({ botId: 'B9' }), pairing, state)).toBe(false);
    expect(pairingCandidate(dm({ user: 'UBOT' }), pairing, state)).toBe(false);
    expect(pairingCandidate(dm({ user: undefined }), pairing, state)).toBe(false);
    expect(pairingCandidate(dm({ subtype: 'message_deleted' }), pairing, state)).toBe(false);
  });
});
