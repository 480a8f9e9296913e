import type { Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StreamingRunner } from '../fakes/streaming-runner.js';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import { expectNoOverflow, openControlUi, saveScreenshot } from '../helpers/control-ui.js';
import { startTestGateway, TEST_TOKEN, type TestGateway } from '../helpers/gateway.js';

/**
 * The chat page (`#/chat`) in Chromium against whole gateways: history from the store after a
 * reload and on a thread switch (paged back), the working and queued indicators, a message over
 * the limit refused before sending, a failed send keeping its text, Markdown without script, and
 * a 390 px phone. Screenshots go to $SWITCHBOARD_SCREENSHOTS (kept) or the gateway's temp dir.
 */

const WAIT = { timeout: 15_000, interval: 50 };
const cleanups: Array<() => Promise<void>> = [];

describe('the chat page in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];
  let requests: string[] = [];

  beforeAll(async () => {
    browser = await launchBrowser({ width: 1280, height: 800 });
    browser.context.on('request', (request) =>
      requests.push(`${request.method()} ${new URL(request.url()).pathname}`),
    );
  });

  afterAll(async () => {
    await closeBrowser(browser);
  });

  afterEach(async () => {
    for (const open of browser?.context.pages() ?? []) await open.close();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function open(
    gateway: TestGateway,
    viewport = { width: 1280, height: 800 },
    as = { token: gateway.token, user: 'local' },
  ): Promise<void> {
    pageErrors = [];
    requests = [];
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    await page.setViewportSize(viewport);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await openControlUi(page, gateway.url, as.token, 'chat');
    await expect
      .poll(() => page.locator('#connection').textContent(), WAIT)
      .toBe(`connected as webchat:${as.user}`);
    await settled();
  }

  const settled = () => page.locator('.history[aria-busy="false"]').waitFor({ state: 'attached' });
  const texts = async (locator: Locator) => (await locator.allTextContents()).map((text) => text.trim());
  const userTexts = () => texts(page.locator('#log .message.user .text'));
  const working = () => page.locator('p.working').textContent();

  async function gatewayWith(options: Parameters<typeof startTestGateway>[0] = {}): Promise<TestGateway> {
    const gateway = await startTestGateway(options);
    cleanups.push(() => gateway.dispose());
    return gateway;
  }

  async function send(text: string): Promise<void> {
    await page.locator('#text').fill(text);
    await page.locator('#text').press('Enter');
  }

  it('shows the history after a reload and on a thread switch, paged back, and marks news elsewhere', async () => {
    const gateway = await gatewayWith();
    // 30 turns in the main chat (60 messages: a page is 50), one in thread ops, all through the API.
    for (let index = 1; index <= 30; index += 1)
      expect((await gateway.send(`message ${index}`)).status).toBe(200);
    expect((await gateway.send('in ops', undefined, 'ops')).status).toBe(200);
    await open(gateway);

    await expect.poll(() => page.locator('#log .message').count(), WAIT).toBe(50);
    expect((await userTexts()).slice(-2)).toEqual(['message 29', 'message 30']);
    await page.getByRole('button', { name: 'Load earlier messages' }).click();
    await expect.poll(() => page.locator('#log .message').count(), WAIT).toBe(60);
    expect((await userTexts())[0]).toBe('message 1');
    expect(await page.getByRole('button', { name: 'Load earlier messages' }).count()).toBe(0);

    await send('typed here');
    await page.locator('#log[aria-busy="false"]').waitFor({ state: 'attached' });
    await page.reload();
    await settled();
    await expect.poll(async () => (await userTexts()).at(-1), WAIT).toBe('typed here');
    expect(await page.locator('#log .message.agent').last().textContent()).toMatch(/^No model is configured/);

    // The thread picker lists the user's threads; switching shows that thread's history only.
    expect(await texts(page.locator('#thread option'))).toEqual(['Main chat', 'in ops']);
    await page.locator('#thread').selectOption('ops');
    await settled();
    await expect.poll(userTexts, WAIT).toEqual(['in ops']);
    await page.reload();
    await settled();
    await expect.poll(userTexts, WAIT).toEqual(['in ops']);
    expect(await page.locator('#thread').inputValue()).toBe('ops');

    // A reply in the main chat while ops is on screen: not shown here, the main chat is marked.
    expect((await gateway.send('from elsewhere')).status).toBe(200);
    await expect
      .poll(() => page.locator('#thread option[value=""]').textContent(), WAIT)
      .toBe('Main chat (new messages)');
    expect(await userTexts()).toEqual(['in ops']);
    await page.locator('#thread').selectOption('');
    await settled();
    await expect.poll(async () => (await userTexts()).at(-1), WAIT).toBe('from elsewhere');
    expect(await page.locator('#thread option[value=""]').textContent()).toBe('Main chat');
    expect(pageErrors).toEqual([]);
  });

  it("is the signed-in user's chat: a named user's page sends no user and shows only their history", async () => {
    const aliceToken = 'alice-token-0123456789abcdef';
    const gateway = await gatewayWith({
      config: { http: { port: 0, token: TEST_TOKEN, users: { alice: { token: aliceToken } } } },
    });
    expect((await gateway.send('the operator was here')).status).toBe(200);
    await browser.context.clearCookies();
    await open(gateway, undefined, { token: aliceToken, user: 'alice' });
    const bodies: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/api/webchat/messages')) bodies.push(request.postData() ?? '');
    });
    expect(await texts(page.locator('#log .message'))).toEqual([]);
    await send('hello from alice');
    await page.locator('#log .message.user.sent').waitFor();
    expect(bodies.map((body) => JSON.parse(body))).toEqual([{ text: 'hello from alice' }]);
    await page.reload();
    await settled();
    await expect.poll(userTexts, WAIT).toEqual(['hello from alice']);
    // The operator's view of alice's session: her message, sent as her.
    const history = await gateway.request(
      'GET',
      '/api/sessions/agent%3Amain%3Awebchat%3Adirect%3Aalice/transcript',
    );
    expect(history.body.entries[0]).toMatchObject({
      role: 'user',
      text: 'hello from alice',
      senderId: 'webchat:alice',
    });
    await browser.context.clearCookies();
    expect(pageErrors).toEqual([]);
  });

  it('shows Working… from the send to the first token, and Queued on a message behind a running turn', async () => {
    const runner = new StreamingRunner({ deltas: ['First token'], final: 'First token, then the rest.' });
    const gateway = await gatewayWith({ createRunner: () => runner });
    cleanups.push(async () => runner.releaseAll());
    await open(gateway);
    expect(await working()).toBe('');

    await send('one');
    await runner.started(1);
    await expect.poll(working, WAIT).toBe('Working…');
    await send('two');
    const second = page.locator('#log .message.user').nth(1);
    await expect.poll(() => second.locator('.badge.queued').textContent(), WAIT).toBe('Queued');
    expect(await page.locator('#log .message.user').first().locator('.badge').count()).toBe(0);
    expect(await page.locator('#log').getAttribute('aria-busy')).toBe('true');

    runner.step(); // the first token of turn one
    await expect.poll(working, WAIT).toBe('');
    expect(await second.locator('.badge.queued').count()).toBe(1);
    runner.step(); // turn one ends; turn two (for "two") starts
    await runner.started(2);
    await expect.poll(() => second.locator('.badge').count(), WAIT).toBe(0);
    await expect.poll(working, WAIT).toBe('Working…');
    runner.step();
    await expect.poll(working, WAIT).toBe('');
    runner.step();
    await page.locator('#log[aria-busy="false"]').waitFor({ state: 'attached' });
    expect(await texts(page.locator('#log .message.agent .text'))).toEqual([
      'First token, then the rest.',
      'First token, then the rest.',
    ]);
    expect(runner.turns.map((turn) => turn.messages.at(-1)?.text)).toEqual(['one', 'two']);
    expect(pageErrors).toEqual([]);
  });

  it('refuses a message over the limit before sending and keeps it; a failed send puts the text back', async () => {
    const gateway = await gatewayWith();
    await open(gateway);
    const long = 'x'.repeat(32_001);
    await page.locator('#text').fill(long);
    expect(await page.locator('#composer-help').textContent()).toBe('32,001 / 32,000 characters');
    await page.locator('#text').press('Enter');
    await expect
      .poll(() => page.locator('#composer [role="alert"]').textContent(), WAIT)
      .toBe(
        'This message is 32,001 characters; the most is 32,000. Shorten it or split it: it was not sent.',
      );
    expect(await page.locator('#text').inputValue()).toBe(long);
    expect(await page.locator('#log .message.user').count()).toBe(0);
    expect(requests).not.toContain('POST /api/webchat/messages');
    // At the limit it goes.
    await page.locator('#text').fill('y'.repeat(32_000));
    await page.locator('#text').press('Enter');
    await page.locator('#log .message.user.sent').waitFor();
    expect(await page.locator('#text').inputValue()).toBe('');
    expect(requests).toContain('POST /api/webchat/messages');

    // The gateway goes away: the send fails, says why, and the text is back in the box.
    await gateway.stop();
    await send('are you there?');
    await expect
      .poll(() => page.locator('#composer [role="alert"]').textContent(), WAIT)
      .toMatch(/^Not sent: The gateway did not answer .*The text is back in the box\.$/);
    expect(await page.locator('#text').inputValue()).toBe('are you there?');
    expect(await page.locator('#log .message.user.failed [role="alert"]').textContent()).toMatch(
      /^Not sent: /,
    );
  });

  it('renders Markdown without running anything, and fits a 390 px phone', async () => {
    const reply = [
      '## Status',
      'All **good**; see [the docs](https://example.com) and [this](javascript:window.__xss="link").',
      '```json',
      `{ "line": "${'long'.repeat(60)}" }`,
      '```',
      '<img src=x onerror="window.__xss=\'reply\'">',
    ].join('\n');
    const runner = new StreamingRunner({ deltas: [], final: reply });
    runner.releaseAll();
    const gateway = await gatewayWith({ createRunner: () => runner });
    const shots = process.env.SWITCHBOARD_SCREENSHOTS ?? gateway.dir;
    await open(gateway, { width: 390, height: 844 });
    await send(
      `a word ${'unbroken'.repeat(40)} <img src=x onerror="window.__xss='user'"> [go](javascript:window.__xss='user-link')`,
    );
    await page.locator('#log .message.agent h2').waitFor();
    const answer = page.locator('#log .message.agent').first();
    expect(await answer.locator('h2').textContent()).toBe('Status');
    expect(await answer.locator('strong').textContent()).toBe('good');
    expect(await answer.locator('pre code').textContent()).toContain('longlong');
    expect(await answer.locator('a[href="https://example.com"]').getAttribute('rel')).toBe(
      'noopener noreferrer',
    );
    // Sanitized: no handler, no javascript: link, nothing ran.
    expect(await page.locator('#log [onerror]').count()).toBe(0);
    expect(await page.locator('#log a[href^="javascript:"]').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();

    await expectNoOverflow(page);
    await saveScreenshot(page, shots, 'chat-390');
    await page.setViewportSize({ width: 1280, height: 800 });
    await saveScreenshot(page, shots, 'chat-1280');
    expect(pageErrors).toEqual([]);
  });
});
