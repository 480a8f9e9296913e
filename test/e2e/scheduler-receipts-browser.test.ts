import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import { openControlUi, saveScreenshot } from '../helpers/control-ui.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { makeTempDir } from '../helpers/machine.js';
import { SCHEDULER_DIR } from '../helpers/scheduler-host.js';

/**
 * The packaged scheduler on the Tools page of a whole running gateway, in Chromium: a message
 * scheduled from the form to a route that refuses every post shows as a failed job (its error, the
 * Failed metric) in the jobs panel once the gateway's retries are spent. The screenshot goes under
 * a temp dir the test prints.
 */

const WAIT = { timeout: 15_000, interval: 100 };

describe('a failed scheduled delivery on the Tools page in Chromium', () => {
  let gateway: TestGateway;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    gateway = await startTestGateway({
      config: {
        tools: { toolpacks: [{ path: SCHEDULER_DIR, id: 'scheduler' }] },
        // No Discord adapter runs: every post to #dead is refused.
        routes: { '#lobby': 'webchat:local', '#dead': 'discord:123' },
        scheduler: { tickMs: 50, timezone: 'Europe/Berlin' },
        gateway: { drainTimeoutMs: 200 },
      },
      toolpackMessageRetry: { attempts: 3, retryDelayMs: 5, backoffFactor: 2 },
    });
    browser = await launchBrowser({ width: 1000, height: 1400 });
    page = await browser.context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await openControlUi(page, gateway.url, gateway.token, 'tools');
    await page.locator('#toolpacks[aria-busy="false"]').waitFor(WAIT);
  });

  afterAll(async () => {
    await closeBrowser(browser);
    await gateway?.dispose();
  });

  const card = (entry: string) => page.locator(`article[data-entry="${entry}"]`);

  it('schedules from the form; the panel shows the job failed with the route’s error', async () => {
    const form = card('schedule.once').locator('form');
    await form.locator('input[name="at"]').fill(new Date(Date.now() + 500).toISOString());
    await form.locator('input[name="channel"]').fill('#dead');
    await form.locator('input[name="body"]').fill('nobody hears this');
    await form.locator('button').click();
    await expect
      .poll(() => card('schedule.once').locator('.result .output-text').textContent(), WAIT)
      .toContain('Route: scheduler -> #dead');

    const panel = card('schedule.jobs');
    await panel.locator('input[name="includeInactive"]').check();
    await expect
      .poll(async () => {
        await panel.locator('button').click();
        await panel.locator('.result[aria-busy="false"]').waitFor(WAIT);
        return panel.locator('.result .output-text').textContent();
      }, WAIT)
      .toContain('[failed/once]');
    const output = (await panel.locator('.result .output-text').textContent()) ?? '';
    expect(output).toContain('failed msg_');
    expect(output).toContain('error: no channel adapter for discord');
    const failed = panel.locator('.metric', { has: page.locator('dt:text-is("Failed")') }).locator('dd');
    expect(await failed.first().textContent()).toBe('1');
    const shots = await makeTempDir('scheduler-receipts-');
    console.log(`scheduler receipts screenshot: ${await saveScreenshot(page, shots, 'scheduler-failed')}`);
    expect(pageErrors).toEqual([]);
  });
});
