import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import { createChannelSupervisor } from '../../src/surfaces/channels/index.js';
import { createFakeChannel } from '../fakes/fake-channel.js';
import { createRouterRig, type RouterRig } from '../fakes/router-rig.js';

/**
 * Dispatch from adapter to router in-process: fake adapters under the supervisor, whose handler is
 * the router's `dispatch` (test/fakes/router-rig.ts: memory store, the gated runner), as the
 * gateway wires them. What the router delivers goes to the adapter of the route's platform.
 */

const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });
let rig: RouterRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function wire() {
  rig = await createRouterRig();
  const slack = createFakeChannel('slack');
  const discord = createFakeChannel('discord');
  const supervisor = createChannelSupervisor({
    channels: [{ adapter: slack }, { adapter: discord }],
    logger,
  });
  await supervisor.start(rig.router.dispatch);
  /** What the gateway's delivery does: the reply goes to the adapter of its platform. */
  const forward = async () => {
    for (const { route, message } of rig?.delivered.splice(0) ?? []) {
      const adapter = route.channel === 'slack' ? slack : discord;
      await adapter.send(route, message);
    }
  };
  return { rig, slack, discord, supervisor, forward };
}

describe('dispatch from a channel adapter', () => {
  it('a platform message is accepted (stored) before its turn ends, and answered on its own route', async () => {
    const { rig, slack, supervisor, forward } = await wire();
    let accepted = false;
    const done = slack.receive(
      { text: 'hello', chatType: 'channel', chatId: 'C1', threadId: '1.1', senderId: 'slack:U1' },
      {
        accepted: () => {
          accepted = true;
        },
      },
    );
    await rig.gated.waitForOpen(1);
    expect(accepted).toBe(true);
    expect(await rig.inbox.list()).toHaveLength(1);
    rig.gated.releaseNext();
    await expect(done).resolves.toMatchObject({
      sessionKey: 'agent:main:slack:channel:C1:thread:1.1',
      status: 'done',
    });
    await forward();
    expect(slack.sent).toEqual([
      {
        route: { channel: 'slack', chatType: 'channel', chatId: 'C1', threadId: '1.1' },
        message: expect.objectContaining({ text: 'answered: hello' }),
      },
    ]);
    await supervisor.stop();
  });

  it('keeps one session per platform for the same user id, and answers commands without a turn', async () => {
    const { rig, slack, discord, supervisor } = await wire();
    const fromSlack = await slack.receive({ text: '/help', chatId: 'U1', senderId: 'slack:U1' });
    const fromDiscord = await discord.receive({ text: '/help', chatId: 'U1', senderId: 'discord:U1' });
    expect(fromSlack.sessionKey).toBe('agent:main:slack:direct:U1');
    expect(fromDiscord.sessionKey).toBe('agent:main:discord:direct:U1');
    expect(fromSlack.replies[0]?.text).toMatch(/\/help/);
    expect(rig.gated.turns).toHaveLength(0);
    await supervisor.stop();
    await expect(slack.receive({ text: 'after stop' })).rejects.toThrow('not started');
  });
});
