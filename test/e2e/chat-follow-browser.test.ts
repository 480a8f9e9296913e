import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import { expectNoOverflow, openControlUi, saveScreenshot } from '../helpers/control-ui.js';
import { startTestGateway, TEST_TOKEN, type TestGateway } from '../helpers/gateway.js';
import { freePort } from '../helpers/machine.js';

/**
 * The chat page of issue 33 item 5, in Chromium against whole gateways: a command's answer is
 * text (not Markdown) and a model's `<branch>` keeps its words; the log (not the document) scrolls,
 * follows new messages unless the reader scrolled up ("New messages"), and keeps the navigation and
 * the composer in place on a 390 × 844 phone, where an approval's buttons are in view; a pending
 * approval, its decision and command exchanges come back after a reload; a restart note is a
 * system line. Screenshots at 1280 and 390 px go to $SWITCHBOARD_SCREENSHOTS or the gateway's dir.
 */

const WAIT = { timeout: 20_000, interval: 50 };
const PHONE = { width: 390, height: 844 };
const DESK = { width: 1280, height: 800 };
const cleanups: Array<() => Promise<void>> = [];

describe('the chat page follows, keeps and shows as text (Chromium)', () => {
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];

  beforeAll(async () => {
    browser = await launchBrowser(DESK);
  });

  afterAll(async () => {
    await closeBrowser(browser);
  });

  afterEach(async () => {
    for (const open of browser?.context.pages() ?? []) await open.close();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const shots = (gateway: TestGateway) => process.env.SWITCHBOARD_SCREENSHOTS ?? gateway.dir;

  async function gatewayWith(model?: FakeModelServer, extra: Record<string, unknown> = {}) {
    const config = model
      ? {
          tools: { toolpacks: ['shell'] },
          models: {
            fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-chat-0001' },
          },
          agents: { main: { model: 'fake' } },
        }
      : {};
    const gateway = await startTestGateway({ config: { ...config, ...extra } });
    cleanups.push(() => gateway.dispose());
    return gateway;
  }

  async function fakeModel() {
    const model = await startFakeOpenAIServer();
    cleanups.push(() => model.close());
    return model;
  }

  async function open(gateway: TestGateway, viewport = DESK) {
    pageErrors = [];
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    await page.setViewportSize(viewport);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await openControlUi(page, gateway.url, gateway.token, 'chat');
    await connected();
  }

  const connected = async () => {
    await expect
      .poll(() => page.locator('#connection').textContent(), WAIT)
      .toBe('connected as webchat:local');
    await page.locator('.history[aria-busy="false"]').waitFor({ state: 'attached' });
  };

  async function reload() {
    await page.reload();
    await connected();
  }

  async function send(text: string) {
    await page.locator('#text').fill(text);
    await page.locator('#text').press('Enter');
  }

  /** Where things are on screen, measured in the page. */
  const layout = () =>
    page.evaluate(`(() => {
      const box = (selector) => {
        const found = document.querySelector(selector);
        if (!found) return null;
        const rect = found.getBoundingClientRect();
        return { top: Math.round(rect.top), bottom: Math.round(rect.bottom) };
      };
      const log = document.querySelector('.chat-scroll');
      const last = [...document.querySelectorAll('#log > *')].at(-1);
      return {
        documentScrolls: document.documentElement.scrollHeight > window.innerHeight + 1,
        documentTop: document.scrollingElement.scrollTop,
        viewport: window.innerHeight,
        nav: box('header.top nav'),
        composer: box('#composer'),
        scroller: box('.chat-scroll'),
        last: last ? { top: Math.round(last.getBoundingClientRect().top), bottom: Math.round(last.getBoundingClientRect().bottom) } : null,
        fromEnd: log ? Math.round(log.scrollHeight - log.scrollTop - log.clientHeight) : null,
      };
    })()`) as Promise<{
      documentScrolls: boolean;
      documentTop: number;
      viewport: number;
      nav: { top: number; bottom: number };
      composer: { top: number; bottom: number };
      scroller: { top: number; bottom: number };
      last: { top: number; bottom: number } | null;
      fromEnd: number;
    }>;

  it('shows a command answer as text and a model reply with <branch> whole; both stay after a reload', async () => {
    const model = await fakeModel();
    model.push({
      text: 'Push <branch> to origin, open <path>, then type /approve <code>. Then **wait** for it.',
    });
    const gateway = await gatewayWith(model);
    await open(gateway);
    await send('/help');
    const plain = page.locator('#log .message.agent .text.plain');
    await expect.poll(() => plain.count(), WAIT).toBe(1);
    expect(await plain.textContent()).toContain('get [path], schema <path>, patch <json>, apply <json>');
    await send('tell me');
    const answer = page.locator('#log .message.agent').filter({ hasText: 'Push' });
    await answer.waitFor();
    expect((await answer.textContent())?.trim()).toBe(
      'Push <branch> to origin, open <path>, then type /approve <code>. Then wait for it.',
    );
    expect(await answer.locator('strong').textContent()).toBe('wait');
    expect(await answer.locator('code').count()).toBe(0);

    await reload();
    const shown = () =>
      page
        .locator('#log > *')
        .evaluateAll((all) => all.map((element) => element.textContent?.trim().slice(0, 40)));
    await expect.poll(() => page.locator('#log .message.agent .text.plain').count(), WAIT).toBe(1);
    expect(await shown()).toEqual([
      '/help',
      expect.stringMatching(/^Commands:\n\/help/),
      'tell me',
      'Push <branch> to origin, open <path>, th',
    ]);
    await saveScreenshot(page, shots(gateway), 'chat-text-1280', { fullPage: false });
    await page.setViewportSize(PHONE);
    await expectNoOverflow(page);
    await saveScreenshot(page, shots(gateway), 'chat-text-390', { fullPage: false });
    expect(pageErrors).toEqual([]);
  });

  it('scrolls the log, not the page; follows new messages unless scrolled up, then offers them', async () => {
    const gateway = await gatewayWith();
    for (let index = 1; index <= 20; index += 1)
      expect((await gateway.send(`message ${index}`)).status).toBe(200);
    await open(gateway, PHONE);
    await expect.poll(async () => (await layout()).fromEnd, WAIT).toBeLessThanOrEqual(2);
    let seen = await layout();
    expect(seen.documentScrolls).toBe(false);
    expect(seen.nav.top).toBeGreaterThanOrEqual(0);
    expect(seen.composer.bottom).toBeLessThanOrEqual(seen.viewport);
    expect(seen.last?.bottom).toBeLessThanOrEqual(seen.scroller.bottom + 1);

    // Scrolled up to read: a new answer does not move the log, the button offers it.
    await page.locator('.chat-scroll').evaluate((box) => {
      box.scrollTop = 0;
    });
    expect((await gateway.send('from another tab')).status).toBe(200);
    const pill = page.getByRole('button', { name: /New messages/ });
    await pill.waitFor();
    seen = await layout();
    expect(seen.fromEnd).toBeGreaterThan(200);
    await saveScreenshot(page, shots(gateway), 'chat-new-messages-390', { fullPage: false });
    await pill.click();
    await expect.poll(async () => (await layout()).fromEnd, WAIT).toBeLessThanOrEqual(2);
    expect(await pill.count()).toBe(0);

    // At the end: the next answer is followed, no button.
    await send('one more');
    await expect
      .poll(async () => (await page.locator('#log .message.user').last().textContent())?.trim(), WAIT)
      .toBe('one more');
    await expect.poll(() => page.locator('#log .message.agent').count(), WAIT).toBe(22);
    await expect.poll(async () => (await layout()).fromEnd, WAIT).toBeLessThanOrEqual(2);
    expect(await pill.count()).toBe(0);
    seen = await layout();
    expect(seen.documentScrolls).toBe(false);
    expect(seen.documentTop).toBe(0);
    await expectNoOverflow(page);
    await saveScreenshot(page, shots(gateway), 'chat-follow-390', { fullPage: false });
    await page.setViewportSize(DESK);
    await saveScreenshot(page, shots(gateway), 'chat-follow-1280', { fullPage: false });
    expect(pageErrors).toEqual([]);
  });

  it('shows the Approve button on a phone without scrolling; the request, its decision and /status survive reloads; a restart note is a system line', async () => {
    const model = await fakeModel();
    const port = await freePort();
    const gateway = await gatewayWith(model, {
      http: { port, token: TEST_TOKEN },
      gateway: { drainTimeoutMs: 200 },
    });
    for (let index = 1; index <= 12; index += 1)
      expect((await gateway.send(`earlier ${index}`)).status).toBe(200);
    await open(gateway, PHONE);
    await send('/status');
    await expect.poll(() => page.locator('#log .message.agent .text.plain').count(), WAIT).toBe(1);
    model.push({ toolCalls: [{ name: 'shell.exec', arguments: { command: 'echo approved' } }] });
    model.push({ text: 'ran it' });
    await send('please run it');
    const card = page.locator('#log .message.agent').filter({ has: page.locator('.actions') });
    const approve = card.getByRole('button', { name: /^Approve/ });
    await approve.waitFor();
    await expect.poll(async () => (await layout()).fromEnd, WAIT).toBeLessThanOrEqual(2);
    const button = await approve.boundingBox();
    const seen = await layout();
    expect(seen.documentTop).toBe(0);
    expect(seen.documentScrolls).toBe(false);
    expect(button && button.y + button.height).toBeLessThanOrEqual(seen.composer.top);
    await saveScreenshot(page, shots(gateway), 'chat-approval-390', { fullPage: false });

    // Reloaded while it waits: the request is there with its buttons, after the /status exchange.
    await reload();
    await approve.waitFor();
    expect(await page.locator('#log .message.agent .text.plain').textContent()).toMatch(/^Agent: main/);
    await approve.click();
    const decided = page.locator('#log .message.agent .decision');
    await expect.poll(() => decided.textContent(), WAIT).toMatch(/^Approved by webchat:local/);
    await page.locator('#log .message.agent').filter({ hasText: 'ran it' }).waitFor();

    // Reloaded after the decision: the decision in place of the buttons.
    await reload();
    await expect.poll(() => decided.textContent(), WAIT).toMatch(/^Approved by webchat:local/);
    expect(await page.locator('#log .actions button').count()).toBe(0);
    await page.setViewportSize(DESK);
    await saveScreenshot(page, shots(gateway), 'chat-approval-decided-1280', { fullPage: false });

    // A config edit restarts the gateway: its note is a system line, live and after a reload.
    const current = (await gateway.request('GET', '/api/config')).body;
    const edit = await gateway.request('POST', '/api/config', {
      action: 'patch',
      raw: '{ "gateway": { "drainTimeoutMs": 300 } }',
      baseHash: current.hash,
      note: 'from the chat test',
    });
    expect(edit.status, JSON.stringify(edit.body)).toBe(200);
    const note = page.locator('#log .message.system').filter({ hasText: 'from the chat test' });
    await note.waitFor({ timeout: 30_000 });
    expect(await note.textContent()).toContain('Gateway restarted (config-patch): from the chat test');
    await reload();
    await note.waitFor();
    expect(await page.locator('#log .message.agent').filter({ hasText: 'from the chat test' }).count()).toBe(
      0,
    );
    await saveScreenshot(page, shots(gateway), 'chat-note-1280', { fullPage: false });
    await page.setViewportSize(PHONE);
    await expectNoOverflow(page);
    await saveScreenshot(page, shots(gateway), 'chat-note-390', { fullPage: false });
    expect(pageErrors).toEqual([]);
  });
});
