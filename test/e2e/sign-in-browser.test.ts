import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import { expectNoOverflow, saveScreenshot } from '../helpers/control-ui.js';
import { startTestGateway, TEST_TOKEN, type TestGateway } from '../helpers/gateway.js';
import { makeTempDir } from '../helpers/machine.js';

// The sign-in in Chromium, as a person uses it: the form (or the log's `?token=` link) sets a
// cookie that outlives the browser (closed and relaunched on the same profile), and signing out
// ends it. A named user's token signs in as that user.
const WAIT = { timeout: 15_000, interval: 100 };
const PHONE = { width: 390, height: 844 };
const ALICE_TOKEN = 'alice-token-0123456789abcdef';
const THIRTY_DAYS = 30 * 24 * 3600;

describe('signing in to the control UI in Chromium', () => {
  let gateway: TestGateway;
  let browser: Browser | undefined;
  /** The screenshots' directory: kept after the run (a test artifact), named in the output. */
  let shots: string;

  beforeAll(async () => {
    shots = await makeTempDir('switchboard-sign-in-shots-');
    console.info(`sign-in screenshots: ${shots}/screenshots`);
    gateway = await startTestGateway({
      config: {
        http: { port: 0, token: TEST_TOKEN, users: { alice: { token: ALICE_TOKEN } } },
        // A model is configured (never called), so the control UI opens on its first page, not on Setup.
        models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: 'http://127.0.0.1:9/v1' } },
        agents: { main: { model: 'fake' } },
      },
    });
  });

  afterAll(async () => {
    await closeBrowser(browser);
    await gateway?.dispose();
  });

  /** Closes Chromium (keeping its profile directory) and starts it again on that profile. */
  async function relaunch(): Promise<Page> {
    if (!browser) throw new Error('no browser to relaunch');
    await browser.context.close();
    browser = await launchBrowser(PHONE, browser.dir);
    return browser.context.newPage();
  }

  const who = (page: Page) => page.locator('header.top .who').textContent({ timeout: 15_000 });

  it('keeps the ?token= link sign-in after the browser is closed and opened again', async () => {
    browser = await launchBrowser(PHONE);
    const page = await browser.context.newPage();
    await page.goto(`${gateway.url}/?token=${encodeURIComponent(gateway.token)}`);
    expect(await who(page)).toBe('local (owner)');
    expect(page.url()).toBe(`${gateway.url}/`);

    const again = await relaunch();
    await again.goto(`${gateway.url}/`);
    expect(await who(again)).toBe('local (owner)');
    await closeBrowser(browser);
    browser = undefined;
  });

  it('signs in with the form as a named user, stays signed in across a relaunch, and signs out', async () => {
    browser = await launchBrowser(PHONE);
    const page = await browser.context.newPage();
    const first = await page.goto(`${gateway.url}/`);
    expect(first?.status()).toBe(200);
    const token = page.getByLabel('Token');
    await token.waitFor(WAIT);
    await expectNoOverflow(page);
    await saveScreenshot(page, shots, 'sign-in');

    await token.fill('not-the-token-at-all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent(), WAIT).toContain('not the gateway token');
    expect(await alert.textContent()).not.toContain('not-the-token-at-all');
    // What was typed stays, to be corrected.
    expect(await token.inputValue()).toBe('not-the-token-at-all');
    await saveScreenshot(page, shots, 'sign-in-refused');

    await token.fill(ALICE_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await who(page)).toBe('alice');
    // Not an owner: the owner pages are not offered; the chat is alice's own, with no user to type.
    expect(await page.locator('header.top nav a').allTextContents()).toEqual(['Chat', 'Approvals']);
    await page.getByLabel('Message', { exact: true }).fill('/whoami');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect
      .poll(() => page.locator('article[aria-label="Agent"]').allTextContents(), WAIT)
      .toContainEqual(expect.stringContaining('You are webchat:alice (not an owner).'));
    await expectNoOverflow(page);
    await saveScreenshot(page, shots, 'signed-in-alice');
    const [cookie] = await browser.context.cookies(gateway.url);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', secure: false, path: '/' });
    // Thirty days from now (a minute's slack for a slow machine).
    expect(Math.abs((cookie?.expires ?? 0) - (Date.now() / 1000 + THIRTY_DAYS))).toBeLessThan(60);

    const again = await relaunch();
    await again.goto(`${gateway.url}/`);
    expect(await who(again)).toBe('alice');
    await saveScreenshot(again, shots, 'relaunched-alice');

    await again.getByRole('button', { name: 'Sign out' }).click();
    await again.getByLabel('Token').waitFor(WAIT);
    expect(await browser.context.cookies(gateway.url)).toEqual([]);
    await again.reload();
    await again.getByLabel('Token').waitFor(WAIT);
    await saveScreenshot(again, shots, 'signed-out');
    // Signed out means the API refuses this browser, not only that the page says so.
    const status = await again.evaluate('fetch("/api/me").then((answer) => answer.status)');
    expect(status).toBe(401);
  });
});
