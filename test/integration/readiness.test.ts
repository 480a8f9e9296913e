import { describe, expect, it } from 'vitest';
import { startGatewayForTest, startSlackForTest } from '../helpers/channels.js';
import { parseExposition } from '../helpers/prometheus.js';
import { startRedisServer } from '../helpers/redis-server.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * `/readyz` (public): 200 only while the store answers and every configured channel is connected,
 * else 503 with the reasons as component and state words (no address, token or error text);
 * `/healthz` stays liveness. Against the real Bolt and a fake Slack that goes down and comes back,
 * and a real Redis store that stops and starts again; `/metrics` follows the channel's state.
 */

const RECONNECT = { initialDelayMs: 20, maxDelayMs: 100 };

const cleanups = cleanupAfterEach();

async function getPublic(url: string): Promise<{ status: number; body: any; text: string }> {
  const response = await fetch(url, { headers: { connection: 'close' } });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text), text };
}

describe('GET /readyz', () => {
  it('is 503 naming slack while the fake Slack is down, and 200 again once it recovers', async () => {
    const slack = await startSlackForTest(cleanups);
    const gateway = await startGatewayForTest(cleanups, {
      config: {
        metrics: { public: true },
        channels: {
          slack: {
            botToken: 'xoxb-ready-secret',
            appToken: 'xapp-ready-secret',
            apiUrl: slack.apiUrl,
            reconnect: RECONNECT,
          },
        },
      },
    });
    await slack.connected();
    await expect.poll(async () => (await getPublic(`${gateway.url}/readyz`)).status).toBe(200);
    const ready = await getPublic(`${gateway.url}/readyz`);
    expect(ready.body).toEqual({
      ready: true,
      status: 'ok',
      mode: 'normal',
      channels: { webchat: 'connected', slack: 'connected' },
      down: [],
      store: 'ok',
      reasons: [],
      // The running version (issue 31: an update is proven by the new process reporting its commit here).
      version: { package: expect.any(String), commit: expect.stringMatching(/^[0-9a-f]{40}$/) },
    });
    // metrics.public: a scraper without a token.
    const connected = async (channel: string) => {
      const response = await fetch(`${gateway.url}/metrics`, { headers: { connection: 'close' } });
      expect(response.status).toBe(200);
      return parseExposition(await response.text()).value('switchboard_channel_connected', { channel });
    };
    expect(await connected('slack')).toBe(1);

    await slack.goDown();
    await expect
      .poll(async () => (await getPublic(`${gateway.url}/readyz`)).status, { timeout: 15_000 })
      .toBe(503);
    const down = await getPublic(`${gateway.url}/readyz`);
    expect(down.body).toMatchObject({ ready: false, store: 'ok', down: ['slack'] });
    expect(down.body.reasons).toEqual([
      { component: 'slack', state: expect.stringMatching(/^(connecting|retrying)$/) },
    ]);
    for (const secret of ['ready-secret', slack.apiUrl, '127.0.0.1']) expect(down.text).not.toContain(secret);
    // Liveness: the process serves, the web chat answers.
    expect((await getPublic(`${gateway.url}/healthz`)).status).toBe(200);
    expect(await connected('slack')).toBe(0);
    expect(await connected('webchat')).toBe(1);

    await slack.comeUp();
    await expect
      .poll(async () => (await getPublic(`${gateway.url}/readyz`)).status, { timeout: 30_000 })
      .toBe(200);
    expect(await connected('slack')).toBe(1);
  }, 60_000);

  it('is 503 naming the store while Redis is stopped, and 200 again once it is back', async () => {
    const redis = await startRedisServer();
    cleanups.push(() => redis.stop());
    const gateway = await startGatewayForTest(cleanups, { config: { store: { url: redis.url } } });
    expect((await getPublic(`${gateway.url}/readyz`)).status).toBe(200);

    await redis.stop();
    await expect
      .poll(async () => (await getPublic(`${gateway.url}/readyz`)).status, { timeout: 15_000 })
      .toBe(503);
    const down = await getPublic(`${gateway.url}/readyz`);
    expect(down.body.ready).toBe(false);
    expect(down.body.store).toMatch(/^(unreachable|timeout)$/);
    expect(down.body.reasons).toEqual([{ component: 'store', state: down.body.store }]);
    expect(down.text).not.toContain(String(redis.port));
    expect((await getPublic(`${gateway.url}/healthz`)).status).toBe(200);

    const again = await startRedisServer({ port: redis.port });
    cleanups.push(() => again.stop());
    await expect
      .poll(async () => (await getPublic(`${gateway.url}/readyz`)).status, { timeout: 30_000 })
      .toBe(200);
  }, 60_000);
});
