import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import { openControlUi, saveScreenshot } from '../helpers/control-ui.js';
import { makeTempDir } from '../helpers/machine.js';
import { startToolUiServer, type ToolUiServer } from '../helpers/tool-ui-server.js';

// The packaged scheduler's WebUI recurring form on the Tools page, in the system's Chromium: its
// cron and timezone fields, the confirmation's next fire times, and the panel listing the job.
// The screenshot goes under a temp dir the test prints.
const WAIT = { timeout: 15_000, interval: 50 };
const TOKEN = 'scheduler-form-test-token';

describe('the scheduler recurring form in Chromium', () => {
  let server: ToolUiServer;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await startToolUiServer({ fixtures: ['../../toolpacks/scheduler'], token: TOKEN, stats: {} });
    browser = await launchBrowser({ width: 900, height: 1200 });
    page = await browser.context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await openControlUi(page, server.url, TOKEN, 'tools');
    await page.locator('#toolpacks[aria-busy="false"]').waitFor(WAIT);
  });

  afterAll(async () => {
    await closeBrowser(browser);
    await server?.close();
  });

  const card = (entry: string) => page.locator(`article[data-entry="${entry}"]`);
  const result = (entry: string) => card(entry).locator('.result[aria-busy="false"]');

  it('creates a cron job in a time zone and shows its next three fire times in the zone and in UTC', async () => {
    const form = card('schedule.recurring').locator('form');
    expect(await form.locator('input[name="cron"]').getAttribute('type')).toBe('text');
    expect(await form.locator('input[name="timezone"]').getAttribute('type')).toBe('text');
    await form.locator('input[name="cron"]').fill('0 9 * * 1-5');
    await form.locator('input[name="timezone"]').fill('Europe/Berlin');
    await form.locator('select[name="recipient"]').selectOption({ label: 'Reviewer (reviewer)' });
    await form.locator('input[name="body"]').fill('stand-up');
    await form.locator('button').click();
    await expect
      .poll(() => card('schedule.recurring').locator('.result .output-text').textContent(), WAIT)
      .toContain('Schedule: cron "0 9 * * 1-5" Europe/Berlin');
    const output = (await result('schedule.recurring').locator('.output-text').textContent()) ?? '';
    expect(output).toContain('Time zone: Europe/Berlin');
    const runs = output.split('\n').filter((line) => line.includes(' Europe/Berlin = '));
    expect(runs).toHaveLength(3);
    // Shown as Markdown too: the same first line, as text.
    expect(await result('schedule.recurring').locator('.output').textContent()).toContain(
      'Schedule: cron "0 9 * * 1-5" Europe/Berlin',
    );
    for (const line of runs) {
      expect(line).toMatch(
        /^ {2}\d{4}-\d\d-\d\dT09:00:00\+0[12]:00 Europe\/Berlin = \d{4}-\d\d-\d\dT0[78]:00:00\.000Z UTC$/,
      );
    }

    await card('schedule.jobs').locator('button').click();
    await expect
      .poll(() => card('schedule.jobs').locator('.result .output-text').textContent(), WAIT)
      .toContain('schedule: cron "0 9 * * 1-5" Europe/Berlin');
    const shots = await makeTempDir('scheduler-form-');
    console.log(`scheduler form screenshot: ${await saveScreenshot(page, shots, 'scheduler-form')}`);
    expect(pageErrors).toEqual([]);
  });

  it('shows the refusal of an invalid expression, naming the field', async () => {
    const form = card('schedule.recurring').locator('form');
    await form.locator('input[name="cron"]').fill('0 25 * * *');
    await form.locator('input[name="timezone"]').fill('');
    await form.locator('input[name="body"]').fill('never');
    await form.locator('button').click();
    await expect
      .poll(() => card('schedule.recurring').locator('.result [role="alert"]').textContent(), WAIT)
      .toContain('the hour field "25" is invalid');
  });
});
