import { describe, expect, it } from 'vitest';
import type { WebchatPort } from '../../src/surfaces/http/index.js';
import { startGatewayForTest } from '../helpers/channels.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * `GatewayExtensions.onServing` (what the durable bench uses to hand messages in-process): it
 * gets the web chat channel of the gateway that serves now, on the start and on every restart.
 */

const cleanups = cleanupAfterEach();

describe('onServing', () => {
  it('hands over the serving web chat channel at start and again after a restart', async () => {
    const served: (WebchatPort | undefined)[] = [];
    const gateway = await startGatewayForTest(cleanups, {
      config: { store: { url: 'memory://' } },
      onServing: (parts) => served.push(parts.webchat),
    });
    expect(served).toHaveLength(1);
    const first = await served[0]?.receive({ text: '/whoami', user: 'local' });
    expect(first?.replies.map((reply) => reply.text)).toEqual(['You are webchat:local (owner).']);

    await gateway.restart();
    expect(served).toHaveLength(2);
    expect(served[1]).not.toBe(served[0]);
    const second = await served[1]?.receive({ text: '/whoami', user: 'bench' });
    expect(second?.sessionKey).toBe('agent:main:webchat:direct:bench');
    expect(second?.replies).toHaveLength(1);
  });

  it('hands over undefined when the web chat is off', async () => {
    const served: (WebchatPort | undefined)[] = [];
    await startGatewayForTest(cleanups, {
      config: { store: { url: 'memory://' }, channels: { webchat: { enabled: false } } },
      onServing: (parts) => served.push(parts.webchat),
    });
    expect(served).toEqual([undefined]);
  });
});
