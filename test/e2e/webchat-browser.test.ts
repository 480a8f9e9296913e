import type { Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StreamingRunner } from '../fakes/streaming-runner.js';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import { openControlUi } from '../helpers/control-ui.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

// Drives the control UI's chat page (`#/chat`) in the system's Chromium (see test/helpers/browser.ts).
const WAIT = { timeout: 15_000, interval: 50 };

describe('web chat page in Chromium', () => {
  let gateway: TestGateway;
  let browser: Browser;
  /** Every request any page of the shared browser made during the current test. */
  let requests: string[] = [];
  let pageErrors: string[] = [];
  let page: Page;
  /** Per-test cleanup (extra gateways and browsers), run in reverse order. */
  const cleanups: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    gateway = await startTestGateway();
    browser = await launchBrowser();
    browser.context.on('request', (request) => requests.push(request.url()));
  });

  afterAll(async () => {
    await closeBrowser(browser);
    await gateway?.dispose();
  });

  beforeEach(async () => {
    requests = [];
    pageErrors = [];
    await browser.context.clearCookies();
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') {
        pageErrors.push(`${message.text()} (${message.location().url})`);
      }
    });
  });

  afterEach(async () => {
    for (const open of browser?.context.pages() ?? []) await open.close();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /**
   * Signs in through the `?token=` link, opens the chat and waits for its event stream; then, unless
   * told not to, starts a new thread (with no history: the tests share a gateway and its main chat).
   */
  async function signIn(target: TestGateway, on: Page = page, newThread = true): Promise<void> {
    await openControlUi(on, target.url, target.token, 'chat');
    await expect.poll(() => on.locator('#connection').textContent(), WAIT).toBe('connected as webchat:local');
    if (newThread) await on.getByRole('button', { name: 'New thread' }).click();
    await on.locator('.history[aria-busy="false"]').waitFor({ state: 'attached' });
  }

  const agentBubbles = (on: Page = page) => on.locator('#log .message.agent');
  /** An element's text without the line break Markdown's last block leaves. */
  const textOf = async (locator: Locator) => (await locator.textContent())?.trim();

  /** Sends like a user (type, Enter) and waits until the page has handled the POST answer. */
  async function send(text: string, on: Page = page): Promise<void> {
    await on.locator('#text').fill(text);
    await on.locator('#text').press('Enter');
    await on.locator('#log[aria-busy="false"]').waitFor({ state: 'attached' });
  }

  it('signs in with ?token= and connects as the signed-in user, who is named nowhere else', async () => {
    await signIn(gateway);
    // HttpOnly: the page's script cannot read the token.
    expect(await page.evaluate('document.cookie')).toBe('');
    expect(await page.title()).toBe('Switchboard');
    expect(await page.locator('#connection').getAttribute('class')).toBe('connection');
    expect(await page.locator('header.top .who').textContent()).toBe('local (owner)');
    // No User box: the web chat user is the sign-in's.
    expect(await page.locator('#user').count()).toBe(0);
    expect(await page.getByLabel('Message', { exact: true }).count()).toBe(1);
    expect(pageErrors).toEqual([]);
  });

  it('answers /whoami and /help', async () => {
    await signIn(gateway);
    await send('/whoami');
    await expect.poll(() => page.locator('#log .message.user').allInnerTexts(), WAIT).toEqual(['/whoami']);
    await expect.poll(() => agentBubbles().allInnerTexts(), WAIT).toEqual(['You are webchat:local (owner).']);

    await send('/help');
    await expect.poll(() => agentBubbles().count(), WAIT).toBe(2);
    const help = await agentBubbles().nth(1).textContent();
    expect(help).toContain('/whoami');
    expect(help).toContain('/help');
    expect(pageErrors).toEqual([]);
  });

  it('shows the no-model reply to free text, once', async () => {
    await signIn(gateway);
    await send('hello there');
    await expect.poll(() => agentBubbles().count(), WAIT).toBe(1);
    // The reply came both on the event stream and in the POST answer: one bubble, not two.
    const text = await agentBubbles().first().textContent();
    expect(text).toMatch(/^No model is configured for agent /);
    expect(await agentBubbles().first().getAttribute('class')).not.toContain('streaming');
    expect(pageErrors).toEqual([]);
  });

  it('shows streamed partial text before the final reply replaces it', async () => {
    const runner = new StreamingRunner({
      deltas: ['Counting: one', ', two', ', three'],
      final: 'Counting: one, two, three. **Done.**',
    });
    const streaming = await startTestGateway({ createRunner: () => runner });
    cleanups.push(async () => {
      runner.releaseAll();
      await streaming.dispose();
    });
    await signIn(streaming);

    await page.locator('#text').fill('count to three');
    await page.locator('#text').press('Enter');
    await runner.started();
    expect(runner.turns[0]?.messages.map((entry) => entry.text)).toEqual(['count to three']);
    const bubble = agentBubbles().first();

    for (const partial of ['Counting: one', 'Counting: one, two', 'Counting: one, two, three']) {
      runner.step();
      await expect.poll(() => textOf(bubble.locator('.text')), WAIT).toBe(partial);
      expect(await bubble.getAttribute('class')).toContain('streaming');
      expect(await agentBubbles().count()).toBe(1);
      expect(await page.locator('#log').getAttribute('aria-busy')).toBe('true');
    }

    runner.step();
    await expect.poll(() => textOf(bubble.locator('.text')), WAIT).toBe('Counting: one, two, three. Done.');
    await page.locator('#log[aria-busy="false"]').waitFor({ state: 'attached' });
    // The final reply (on the stream and in the POST answer) replaced the partial bubble, as Markdown.
    expect(await agentBubbles().count()).toBe(1);
    expect(await bubble.locator('.text strong').textContent()).toBe('Done.');
    expect(await bubble.getAttribute('class')).not.toContain('streaming');
    expect(pageErrors).toEqual([]);
  });

  it('shows the sign-in page when the cookie stops working, and keeps the unsent text', async () => {
    await signIn(gateway);
    await browser.context.clearCookies();
    await page.locator('#text').fill('anyone there?');
    await page.locator('#text').press('Enter');
    // The API answered 401: the app shows its sign-in form instead of the chat.
    await page.locator('.sign-in form').waitFor();
    expect(await page.locator('#log').count()).toBe(0);

    // Signed in again (the link), the text waits in the box: nothing typed is lost.
    await signIn(gateway, page, false);
    expect(await page.locator('#text').inputValue()).toBe('anyone there?');
    expect(await page.locator('#log .message.user').count()).toBe(0);
  });

  it('talks to the gateway only (works offline) and looks sensible', async () => {
    await signIn(gateway);
    await send('/whoami');
    await send('/help');
    await send('What can you do?');
    await expect.poll(() => agentBubbles().count(), WAIT).toBeGreaterThanOrEqual(3);

    const origin = new URL(gateway.url).origin;
    const paths = requests.map((url) => {
      expect(new URL(url).origin).toBe(origin);
      return new URL(url).pathname;
    });
    // The recorder saw the page's own traffic, so an empty list cannot pass by accident.
    expect(paths).toEqual(
      expect.arrayContaining([
        '/',
        '/api/me',
        '/api/webchat/events',
        '/api/webchat/history',
        '/api/webchat/messages',
      ]),
    );
    expect(pageErrors).toEqual([]);
  });
});
