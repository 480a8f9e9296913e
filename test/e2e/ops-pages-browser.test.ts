import { access } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import { startDiscordForTest, startGatewayForTest, startSlackForTest } from '../helpers/channels.js';
import { expectNoOverflow, openControlUi, saveScreenshot } from '../helpers/control-ui.js';
import type { TestGateway } from '../helpers/gateway.js';
import { mcpServerEntry } from '../helpers/mcp-servers.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * The approvals inbox and the health page in Chromium at 390 px, against a whole gateway with a
 * fake OpenAI model, a fake Slack (connected) and a fake Discord that is down (retrying): a tool
 * call waiting for its approval is approved from the inbox and runs; its arguments, carrying
 * markup, stay text; the health page shows Slack connected and Discord with its reason.
 */

const WAIT = { timeout: 15_000, interval: 100 };
const PHONE = { width: 390, height: 844 };
const API_KEY = 'sk-ops-browser-secret-0001';
const DISCORD_TOKEN = 'fake-discord-ops-token';
const HOSTILE = '<img src=x onerror=window.__opsXss=1> [x](javascript:window.__opsXss=2)';
const cleanups = cleanupAfterEach();
/** Where the screenshots go: the gateway's temp dir, or a kept dir to look at them. */
const shots = (gateway: TestGateway) => process.env.SWITCHBOARD_SCREENSHOTS ?? gateway.dir;

describe('the approvals inbox and the health page in Chromium', () => {
  let browser: Browser;
  let model: FakeModelServer;

  beforeAll(async () => {
    browser = await launchBrowser(PHONE);
  });
  afterAll(async () => {
    await closeBrowser(browser);
  });

  /** `extra` is merged into the config; as a function it is given the fake model's URL. */
  async function start(
    extra: Record<string, unknown> | ((modelUrl: string) => Record<string, unknown>) = {},
  ): Promise<{ gateway: TestGateway; page: Page; errors: string[] }> {
    model = await startFakeOpenAIServer();
    cleanups.push(() => model.close());
    const slack = await startSlackForTest(cleanups, { echoPosts: true });
    const discord = await startDiscordForTest(cleanups, { token: DISCORD_TOKEN, guilds: [], down: true });
    const gateway = await startGatewayForTest(cleanups, {
      config: {
        gateway: { drainTimeoutMs: 200 },
        tools: { toolpacks: ['shell'] },
        models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: API_KEY } },
        agents: { main: { model: 'fake' } },
        ...(typeof extra === 'function' ? extra(model.url) : extra),
        channels: {
          slack: { botToken: 'xoxb-ops-secret', appToken: 'xapp-ops-secret', apiUrl: slack.apiUrl },
          discord: {
            token: DISCORD_TOKEN,
            apiBase: discord.apiBase,
            reconnect: { initialDelayMs: 50, maxDelayMs: 200 },
          },
        },
      },
    });
    await slack.connected();
    const page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    cleanups.push(() => page.close());
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    return { gateway, page, errors };
  }

  it('approve from the inbox: the held shell.exec runs and the request moves to Decided, by whom', async () => {
    const { gateway, page, errors } = await start();
    model.push({
      toolCalls: [{ name: 'shell.exec', arguments: { command: `echo ran > ran.txt # ${HOSTILE}` } }],
    });
    model.push({ text: 'done' });
    await openControlUi(page, gateway.url, gateway.token, 'approvals');
    await expect.poll(() => page.locator('.empty').textContent(), WAIT).toBe('Nothing waits for a decision.');
    // Asked after the page opened: the inbox refreshes itself.
    const reply = gateway.send('please run it');
    reply.catch(() => undefined);
    const card = page.locator('article.approval');
    await expect.poll(() => card.count(), WAIT).toBe(1);
    expect(await card.locator('h3').textContent()).toMatch(/^shell\.exec [A-Z0-9]{6}$/);
    expect(await card.locator('pre.arguments').textContent()).toContain(HOSTILE);
    // The markup is text: no image, no handler, no javascript: link, nothing ran.
    expect(await card.locator('img').count()).toBe(0);
    expect(await page.locator('[onerror], a[href^="javascript:"]').count()).toBe(0);
    expect(await card.textContent()).not.toContain(API_KEY);
    await expectNoOverflow(page);
    await saveScreenshot(page, shots(gateway), 'approvals-waiting');

    await card.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => page.locator('.said').textContent(), WAIT).toMatch(/^Approved by webchat:local/);
    await expect.poll(() => card.count(), WAIT).toBe(0);
    expect(await page.locator('.empty').textContent()).toBe('Nothing waits for a decision.');
    const row = page.locator('ul.decided li').first();
    await expect.poll(() => row.locator('.by').textContent(), WAIT).toBe('webchat:local');
    expect(await row.locator('.badge').textContent()).toMatch(/^approved/);
    expect((await reply).body.replies.at(-1).text).toBe('done');
    await access(path.join(gateway.dir, 'data/workspaces/main/ran.txt'));
    expect(await page.evaluate('window.__opsXss')).toBeUndefined();
    await expectNoOverflow(page);
    await saveScreenshot(page, shots(gateway), 'approvals-decided');
    expect(errors).toEqual([]);
  });

  it('a request this sender may not decide: no buttons, the approvers named', async () => {
    const { gateway, page, errors } = await start({ approvals: { approvers: ['slack:U42'] } });
    model.push({ toolCalls: [{ name: 'shell.exec', arguments: { command: 'echo no' } }] });
    gateway.send('please run it').catch(() => undefined);
    await openControlUi(page, gateway.url, gateway.token, 'approvals');
    const card = page.locator('article.approval');
    await expect.poll(() => card.count(), WAIT).toBe(1);
    expect(await card.getByRole('button').count()).toBe(0);
    expect(await card.locator('p.muted').last().textContent()).toBe('Only slack:U42 may decide this one.');
    await expectNoOverflow(page);
    expect(errors).toEqual([]);
  });

  it("health: Slack connected, Discord retrying with its reason, the store, the model, the agents' risk, uptime and restarts", async () => {
    const { gateway, page, errors } = await start();
    model.push({ text: 'hello' });
    await gateway.send('hi');
    await openControlUi(page, gateway.url, gateway.token, 'health');
    const channel = (name: string) => page.locator(`[data-channel="${name}"]`);
    await expect.poll(() => channel('slack').locator('.state').textContent(), WAIT).toBe('connected');
    expect(await channel('webchat').locator('.state').textContent()).toBe('connected');
    await expect.poll(() => channel('discord').locator('.state').textContent(), WAIT).toBe('retrying');
    await expect.poll(() => channel('discord').locator('.reason').count(), WAIT).toBe(1);
    expect(await channel('discord').locator('.reason').textContent()).toMatch(/\S/);
    expect(await page.locator('[data-store] .state').textContent()).toBe('reachable');
    expect(await page.locator('[data-model="fake"] .state').textContent()).toBe('answered');
    expect(await page.locator('.version').textContent()).toMatch(/^\d+\.\d+\.\d+/);
    expect(await page.locator('.uptime').textContent()).toMatch(/\d+ (s|min)/);
    expect(await page.locator('.restarts li').first().textContent()).toMatch(/start$/);
    // The Agents card: main's tools include the shell toolpack's owner-only shell.exec.
    expect(await page.locator('[data-agent="main"] [data-risk="exec"]').textContent()).toBe(
      'exec (owner only)',
    );
    expect(await page.locator('[data-agent="main"] [data-risk="messaging"]').count()).toBe(1);
    const text = (await page.locator('main').textContent()) ?? '';
    for (const secret of [API_KEY, DISCORD_TOKEN, 'xoxb-ops-secret', 'xapp-ops-secret'])
      expect(text).not.toContain(secret);
    await expectNoOverflow(page);
    await saveScreenshot(page, shots(gateway), 'health');
    expect(errors).toEqual([]);
  });

  it('health: a model cooling down after a 429 and the last failover to its fallback', async () => {
    const spare = await startFakeOpenAIServer();
    cleanups.push(() => spare.close());
    const fake = { provider: 'openai', model: 'fake-1', apiKey: API_KEY };
    const { gateway, page, errors } = await start((modelUrl) => ({
      models: {
        fake: { ...fake, baseUrl: modelUrl, fallbacks: ['spare'] },
        spare: { ...fake, model: 'fake-2', baseUrl: spare.url },
      },
    }));
    model.push({ status: 429, retryAfter: 600, errorMessage: 'rate limited' });
    spare.push({ text: 'from the spare' });
    await gateway.send('hi');
    await openControlUi(page, gateway.url, gateway.token, 'health');
    const cooling = page.locator('[data-model="fake"] .cooldown');
    await expect.poll(() => cooling.count(), WAIT).toBe(1);
    expect(await cooling.textContent()).toMatch(/cooling down until .+ \(rate limited/);
    expect(await page.locator('[data-model="spare"] .cooldown').count()).toBe(0);
    const failover = (await page.locator('.failover').textContent()) ?? '';
    expect(failover).toMatch(
      /agent main: fake → spare "fake" failed: HTTP 429 Too Many Requests: rate limited/,
    );
    expect(failover).not.toContain(API_KEY);
    await expectNoOverflow(page);
    await saveScreenshot(page, shots(gateway), 'health-failover');
    expect(errors).toEqual([]);
  });

  it('health: the MCP servers, one ready with its tools and one down with its reason', async () => {
    const { gateway, page, errors } = await start({
      mcp: {
        servers: {
          everything: { command: process.execPath, args: [mcpServerEntry('server-everything'), 'stdio'] },
          gone: { command: process.execPath, args: [path.join(process.cwd(), 'no-such-mcp-server.js')] },
        },
      },
    });
    await openControlUi(page, gateway.url, gateway.token, 'health');
    const server = (name: string) => page.locator(`[data-mcp-server="${name}"]`);
    await expect.poll(() => server('everything').locator('.state').textContent(), WAIT).toBe('ready');
    expect(await server('everything').textContent()).toMatch(/\d+ tools/);
    await expect.poll(() => server('gone').locator('.reason').count(), WAIT).toBe(1);
    expect(await server('gone').locator('.reason').textContent()).toContain('no-such-mcp-server.js');
    await expectNoOverflow(page);
    await saveScreenshot(page, shots(gateway), 'health-mcp');
    expect(errors).toEqual([]);
  });
});
