import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/base/config/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import type { DeliveryRoute } from '../../src/base/messages/index.js';
import { createPoster } from '../../src/engine/signals/index.js';
import { createSessionStore } from '../../src/records/sessions/index.js';
import { createStore } from '../../src/records/store/index.js';
import { outboundTo } from '../fakes/outbound.js';

/** Posts for `user`: the coordinator's most recently active chat, read from a page of the session list. */

const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });

async function rig(owners: string[] = []) {
  const store = await createStore({ url: 'memory://', stateDir: '.', logger });
  const checked = validateConfig({ agents: { main: {}, ops: {} }, owners });
  if (!checked.ok) throw new Error(JSON.stringify(checked.error));
  let at = Date.parse('2026-01-01T00:00:00.000Z');
  const sessions = createSessionStore({ store, now: () => new Date(at++) });
  const posted: DeliveryRoute[] = [];
  const poster = createPoster({
    config: checked.value,
    sessions,
    outboundFor: outboundTo({ reply: (route) => void posted.push(route) }),
  });
  const chat = (chatId: string): DeliveryRoute => ({ channel: 'webchat', chatType: 'direct', chatId });
  return { sessions, poster, posted, chat };
}

describe('posts to the user', () => {
  it("go to the coordinator's most recently active chat, past internal and other agents' sessions", async () => {
    const { sessions, poster, posted, chat } = await rig();
    await sessions.ensure('agent:main:webchat:direct:old', { agentId: 'main', route: chat('old') });
    await sessions.ensure('agent:main:webchat:direct:recent', { agentId: 'main', route: chat('recent') });
    await sessions.append('agent:main:webchat:direct:old', { role: 'user', text: 'I am back' });
    for (let index = 0; index < 300; index += 1)
      await sessions.ensure(`agent:ops:webchat:direct:u${index}`, {
        agentId: 'ops',
        route: chat(`u${index}`),
      });
    const internal: DeliveryRoute = { channel: 'internal', chatType: 'direct', chatId: 'main' };
    await sessions.ensure('agent:main:main', { agentId: 'main', route: internal });
    expect(await poster.toUser('the build is green')).toEqual({ ok: true });
    expect(posted).toEqual([chat('old')]);
  });

  it('go to each owner without a chat session, and are refused with no owner either', async () => {
    const withOwners = await rig(['webchat:alice', 'slack:U1']);
    expect(await withOwners.poster.toUser('hello')).toEqual({ ok: true });
    expect(withOwners.posted).toEqual([
      withOwners.chat('alice'),
      { channel: 'slack', chatType: 'direct', chatId: 'U1' },
    ]);
    const alone = await rig();
    expect(await alone.poster.toUser('hello')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('owners'),
    });
  });
});
