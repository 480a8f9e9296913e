import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StreamingRunner } from '../fakes/streaming-runner.js';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

// Drives the web chat page in the system's Chromium (see test/helpers/browser.ts).
const WAIT = { timeout: 10_000, interval: 50 };
const NOT_SIGNED_IN = /^not signed in/;

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

  /** Opens the page with the token, as the ready log line tells the user to, and waits for the stream. */
  async function signIn(target: TestGateway, on: Page = page): Promise<void> {
    const response = await on.goto(`${target.url}/?token=${encodeURIComponent(target.token)}`);
    expect(response?.status()).toBe(200);
    const redirect = response?.request().redirectedFrom();
    expect(redirect?.url()).toBe(`${target.url}/?token=${encodeURIComponent(target.token)}`);
    expect((await redirect?.response())?.status()).toBe(303);
    // The token is gone from the address bar (and history); the cookie carries it.
    expect(on.url()).toBe(`${target.url}/`);
    await expect.poll(() => connectionText(on), WAIT).toBe('connected as webchat:local');
  }

  function connectionText(on: Page = page): Promise<string | null> {
    return on.locator('#connection').textContent();
  }

  function agentBubbles(on: Page = page) {
    return on.locator('#log .message.agent');
  }

  /** Sends like a user (type, Enter) and waits until the page has handled the POST answer. */
  async function send(text: string, on: Page = page): Promise<void> {
    await on.locator('#text').fill(text);
    await on.locator('#text').press('Enter');
    await on.locator('#log[aria-busy="false"]').waitFor(WAIT);
  }

  it('signs in with ?token=, drops the token from the address and connects', async () => {
    await signIn(gateway);
    const cookies = await browser.context.cookies(gateway.url);
    expect(cookies).toEqual([
      expect.objectContaining({
        name: `switchboard_token_${new URL(gateway.url).port}`,
        value: gateway.token,
        httpOnly: true,
        sameSite: 'Strict',
      }),
    ]);
    // HttpOnly: the page's script cannot read the token.
    expect(await page.evaluate('document.cookie')).toBe('');
    expect(await page.title()).toBe('Switchboard web chat');
    expect(await page.locator('#connection').getAttribute('class')).not.toContain('offline');
    expect(pageErrors).toEqual([]);
  });

  it('answers /whoami and /help', async () => {
    await signIn(gateway);
    await send('/whoami');
    await expect.poll(() => page.locator('#log .message.user').allTextContents(), WAIT).toEqual(['/whoami']);
    await expect
      .poll(() => agentBubbles().allTextContents(), WAIT)
      .toEqual(['You are webchat:local (owner).']);

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
      final: 'Counting: one, two, three. Done.',
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
      await expect.poll(() => bubble.textContent(), WAIT).toBe(partial);
      expect(await bubble.getAttribute('class')).toContain('streaming');
      expect(await agentBubbles().count()).toBe(1);
      expect(await page.locator('#log').getAttribute('aria-busy')).toBe('true');
    }

    runner.step();
    await expect.poll(() => bubble.textContent(), WAIT).toBe('Counting: one, two, three. Done.');
    await page.locator('#log[aria-busy="false"]').waitFor(WAIT);
    // The final reply (on the stream and in the POST answer) replaced the partial bubble.
    expect(await agentBubbles().allTextContents()).toEqual(['Counting: one, two, three. Done.']);
    expect(await bubble.getAttribute('class')).not.toContain('streaming');
    expect(pageErrors).toEqual([]);
  });

  it('without the cookie, GET / is a 401 sign-in page and a wrong token sets no cookie', async () => {
    const fresh = await launchBrowser();
    cleanups.push(() => closeBrowser(fresh));
    const anonymous = await fresh.context.newPage();

    const response = await anonymous.goto(`${gateway.url}/`);
    expect(response?.status()).toBe(401);
    expect(response?.headers()['content-type']).toMatch(/^text\/html/);
    expect(await anonymous.locator('h1').textContent()).toBe('Not signed in');
    expect(await anonymous.locator('body').textContent()).toContain('/?token=');

    const wrong = await anonymous.goto(`${gateway.url}/?token=not-the-token`);
    expect(wrong?.status()).toBe(401);
    expect(await fresh.context.cookies(gateway.url)).toEqual([]);
  });

  it('shows "not signed in" when the cookie stops working after the page loaded', async () => {
    await signIn(gateway);
    await browser.context.clearCookies();

    // Switching user reconnects the event stream, which is now refused.
    await page.locator('#user').fill('alice');
    await page.locator('#user').dispatchEvent('change');
    await expect.poll(() => connectionText(), WAIT).toMatch(NOT_SIGNED_IN);
    expect(await page.locator('#connection').getAttribute('class')).toContain('offline');

    // Sending is refused too, and the page says what to do rather than showing the API's wording.
    await send('anyone there?');
    await expect
      .poll(() => page.locator('#log .message.error').allTextContents(), WAIT)
      .toEqual([expect.stringMatching(/^Not signed in/)]);
    expect(await agentBubbles().count()).toBe(0);
  });

  it('talks to the gateway only (works offline) and looks sensible', async () => {
    await signIn(gateway);
    await send('/whoami');
    await send('/help');
    await send('What can you do?');
    await expect.poll(() => agentBubbles().count(), WAIT).toBe(3);
    await page.screenshot({ path: '/tmp/webchat.png' });

    const origin = new URL(gateway.url).origin;
    const paths = requests.map((url) => {
      expect(new URL(url).origin).toBe(origin);
      return new URL(url).pathname;
    });
    // The recorder saw the page's own traffic, so an empty list cannot pass by accident.
    expect(paths).toEqual(expect.arrayContaining(['/', '/api/webchat/events', '/api/webchat/messages']));
    expect(pageErrors).toEqual([]);
  });
});
