import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../fakes/fake-slack.js';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import { askOnSlack, startGatewayForTest, startSlackForTest } from '../helpers/channels.js';
import { expectNoOverflow, openControlUi, saveScreenshot } from '../helpers/control-ui.js';
import type { TestGateway } from '../helpers/gateway.js';
import { pollUntil } from '../helpers/process.js';

// Readable names on the Sessions pages (issue 33 item 6) in the system's Chromium: a whole gateway,
// the real Bolt against the fake Slack, whose users.info and conversations.info answer names. The
// list titles the thread by its channel's name and first words, the transcript names its sender,
// and the ids stay on hover (title attribute).

const WAIT = { timeout: 15_000 };
const THREAD_KEY = 'agent:main:slack:channel:C1:thread:503.0001';
const TITLE = '#ops — deploy failed on the canary after…';

describe('Sessions pages with readable names', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  let gateway: TestGateway;
  let slack: FakeSlack;
  let browser: Browser;
  let page: Page;
  let shots: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    shots = await mkdtemp(path.join(tmpdir(), 'session-names-'));
    console.log(`session names screenshots: ${shots}/screenshots`);
    slack = await startSlackForTest(cleanups, { users: { U1: 'Ann Lee' }, channelNames: { C1: 'ops' } });
    gateway = await startGatewayForTest(cleanups, {
      config: {
        owners: ['webchat:local'],
        channels: { slack: { botToken: 'xoxb-names', appToken: 'xapp-names', apiUrl: slack.apiUrl } },
      },
    });
    await slack.connected();
    await askOnSlack(slack, '503.0001', 'deploy failed on the canary after the schema change');
    // The names are looked up in the background: the page is opened once the API answers them.
    await pollUntil('the thread titled', async () => {
      const { body } = await gateway.request('GET', '/api/sessions?channel=slack');
      return body.sessions.some((session: { title?: string }) => session.title === TITLE) || undefined;
    });
    browser = await launchBrowser({ width: 1280, height: 800 });
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, 90_000);

  afterAll(async () => {
    await closeBrowser(browser);
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('lists the Slack thread by its title, the key on hover', async () => {
    await openControlUi(page, gateway.url, gateway.token, 'sessions');
    const link = page.locator(`.session-table tr[data-key="${THREAD_KEY}"] td[data-label="Session"] a`);
    await link.waitFor(WAIT);
    expect(await link.textContent()).toBe(TITLE);
    expect(await link.getAttribute('title')).toBe(THREAD_KEY);
    // The raw key is not the text anywhere in the list.
    expect(await page.locator('.session-table').textContent()).not.toContain(THREAD_KEY);
    await saveScreenshot(page, shots, 'sessions-names-1280');
    expect(pageErrors).toEqual([]);
  });

  it('titles the transcript and names its sender, the ids on hover', async () => {
    await page.goto(`${gateway.url}/#/sessions/${encodeURIComponent(THREAD_KEY)}`);
    await page.locator('.transcript .entry.user').first().waitFor(WAIT);
    expect(await page.locator('#page-title').textContent()).toBe(TITLE);
    expect(await page.locator('p.session-key').textContent()).toBe(THREAD_KEY);
    const who = page.locator('.transcript .entry.user .who').first();
    expect(await who.textContent()).toBe('Ann Lee');
    expect(await who.getAttribute('title')).toBe('slack:U1');
    expect(await page.locator('.transcript').textContent()).not.toContain('slack:U1');
    await saveScreenshot(page, shots, 'transcript-names-1280');
    expect(pageErrors).toEqual([]);
  });

  it('fits a 390 px phone with the names', async () => {
    const phone = await browser.context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${gateway.url}/#/sessions`);
    await phone.locator(`.session-table tr[data-key="${THREAD_KEY}"] a`).waitFor(WAIT);
    expect(await phone.locator(`.session-table tr[data-key="${THREAD_KEY}"] a`).textContent()).toBe(TITLE);
    await expectNoOverflow(phone);
    await saveScreenshot(phone, shots, 'sessions-names-390');
    await phone.goto(`${gateway.url}/#/sessions/${encodeURIComponent(THREAD_KEY)}`);
    await phone.locator('.transcript .entry.user .who').first().waitFor(WAIT);
    await expectNoOverflow(phone);
    await saveScreenshot(phone, shots, 'transcript-names-390');
    await phone.close();
  });
});
