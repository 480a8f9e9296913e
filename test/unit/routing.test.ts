import { describe, expect, it } from 'vitest';
import type { Binding } from '../../src/base/config/index.js';
import type { InboundMessage } from '../../src/base/messages/index.js';
import { parseCommand, resolveAgentId } from '../../src/engine/routing/index.js';
import { chatSessionKey } from '../../src/records/sessions/index.js';

const message = (overrides: Partial<InboundMessage> = {}): InboundMessage => ({
  channel: 'slack',
  chatType: 'channel',
  chatId: 'C1',
  senderId: 'slack:U1',
  text: 'hi',
  messageId: 'm1',
  teamId: 'T1',
  ...overrides,
});

describe('session keys', () => {
  it('follow the documented shapes', () => {
    expect(chatSessionKey('main', message({ channel: 'webchat', chatType: 'direct', chatId: 'local' }))).toBe(
      'agent:main:webchat:direct:local',
    );
    expect(chatSessionKey('ops', message())).toBe('agent:ops:slack:channel:C1');
    expect(chatSessionKey('ops', message({ threadId: '1700000000.000100' }))).toBe(
      'agent:ops:slack:channel:C1:thread:1700000000.000100',
    );
  });
});

describe('bindings', () => {
  const bindings: Binding[] = [
    { agent: 'team', match: { channel: 'slack', teamId: 'T1' } },
    { agent: 'incident', match: { channel: 'slack', teamId: 'T1', chatId: 'C9' } },
    { agent: 'discord', match: { channel: 'discord' } },
  ];

  it('pick the most specific match, then the default agent', () => {
    expect(resolveAgentId(bindings, 'main', message({ chatId: 'C9' }))).toBe('incident');
    expect(resolveAgentId(bindings, 'main', message({ chatId: 'C2' }))).toBe('team');
    expect(resolveAgentId(bindings, 'main', message({ teamId: 'T2' }))).toBe('main');
    expect(resolveAgentId(bindings, 'main', message({ channel: 'discord', teamId: undefined }))).toBe(
      'discord',
    );
    expect(resolveAgentId([], 'main', message())).toBe('main');
  });
});

describe('command parsing', () => {
  it('reads /name and its arguments, and leaves paths and plain text alone', () => {
    expect(parseCommand('/status')).toEqual({ name: 'status', args: '' });
    expect(parseCommand('  /Config get http.port ')).toEqual({ name: 'config', args: 'get http.port' });
    expect(parseCommand('/subagents kill\nlast')).toEqual({ name: 'subagents', args: 'kill\nlast' });
    expect(parseCommand('/usr/bin/env is broken')).toBeUndefined();
    expect(parseCommand('hello /status')).toBeUndefined();
    expect(parseCommand('/')).toBeUndefined();
  });
});
