import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import { startGatewayForTest } from '../helpers/channels.js';
import { expectNoOverflow, openControlUi, saveScreenshot } from '../helpers/control-ui.js';
import type { TestGateway } from '../helpers/gateway.js';
import { REPO_ROOT } from '../helpers/process.js';

// The Schedules page (web/src/pages/schedules.tsx over the packaged scheduler's WebUI entries) and
// the Logs page (GET /api/logs, the logger's ring of scrubbed lines) in the system's Chromium,
// against a whole gateway. Screenshots at 1280 and 390 px go under a temp dir the test prints.

const WAIT = { timeout: 15_000, interval: 50 };
const VIEWPORTS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;

describe('the Schedules and Logs pages in Chromium', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  let gateway: TestGateway;
  let browser: Browser;
  let shots: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    shots = await mkdtemp(path.join(tmpdir(), 'schedules-logs-'));
    console.log(`schedules and logs screenshots: ${shots}/screenshots`);
    gateway = await startGatewayForTest(cleanups, {
      config: {
        owners: ['webchat:local'],
        gateway: { drainTimeoutMs: 200 },
        scheduler: { timezone: 'Europe/Berlin' },
        tools: {
          toolpacks: ['core', { path: path.join(REPO_ROOT, 'toolpacks/scheduler'), id: 'scheduler' }],
        },
        agents: { main: { displayName: 'Main' }, ops: { displayName: 'Ops' } },
      },
    });
    browser = await launchBrowser(VIEWPORTS.desktop);
  }, 120_000);

  afterAll(async () => {
    await closeBrowser(browser);
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  async function open(hash: string, viewport: { width: number; height: number }): Promise<Page> {
    const page = await browser.context.newPage();
    await page.setViewportSize(viewport);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('dialog', (dialog) => void dialog.accept());
    await openControlUi(page, gateway.url, gateway.token, hash);
    return page;
  }
  const card = (page: Page, body: string) => page.locator('li.job', { hasText: body });
  const outcome = (page: Page, body: string) => card(page, body).locator('.job-outcome[aria-busy="false"]');

  it('creates, pauses, resumes, sends now, edits and cancels a job, each answer where its button is', async () => {
    const page = await open('schedules', VIEWPORTS.desktop);
    try {
      await page.getByText('Nothing is scheduled.').waitFor(WAIT);
      const form = page.locator('form.schedule-form').first();
      await form.getByLabel('Message').fill('stand-up');
      await form.getByLabel('To').selectOption('ops');
      await form.getByLabel('Cron').fill('0 9 * * 1-5');
      await form.getByRole('button', { name: 'Schedule' }).click();
      await expect
        .poll(() => page.locator('.create-job .done').textContent(), WAIT)
        .toContain('Time zone: Europe/Berlin (the default, from scheduler.timezone)');
      // The list: three next runs, each in Europe/Berlin and in UTC.
      const runs = card(page, 'stand-up').locator('.next-runs li');
      await expect.poll(() => runs.count(), WAIT).toBe(3);
      for (const text of await runs.allTextContents()) {
        expect(text).toMatch(/^\d{4}-\d\d-\d\d 09:00 Europe\/Berlin = \d{4}-\d\d-\d\d 0[78]:00 UTC$/);
      }
      expect(await card(page, 'stand-up').locator('.job-facts').textContent()).toContain('ops · P3');

      // A second job, once, in an hour.
      await page.getByLabel('Once').check();
      await form.getByLabel('Message').fill('check the deploy');
      await form.getByLabel('Or in minutes').fill('60');
      await form.getByRole('button', { name: 'Schedule' }).click();
      await card(page, 'check the deploy').waitFor(WAIT);

      await card(page, 'stand-up').getByRole('button', { name: 'Pause' }).click();
      await expect.poll(() => card(page, 'stand-up').locator('.badge').textContent(), WAIT).toBe('paused');
      expect(await outcome(page, 'stand-up').textContent()).toContain('it sends nothing until resumed');
      expect(await card(page, 'stand-up').locator('.job-facts').textContent()).toContain('none while paused');
      await card(page, 'stand-up').getByRole('button', { name: 'Resume' }).click();
      await expect.poll(() => card(page, 'stand-up').locator('.badge').textContent(), WAIT).toBe('active');

      await card(page, 'stand-up').getByRole('button', { name: 'Send now' }).click();
      await expect.poll(() => outcome(page, 'stand-up').textContent(), WAIT).toMatch(/^Sent sch_.* now/);
      await expect
        .poll(() => card(page, 'stand-up').locator('.history summary').textContent(), WAIT)
        .toBe('Run history (1)');
      await card(page, 'stand-up').locator('.history summary').click();
      expect(await card(page, 'stand-up').locator('.history tbody tr').count()).toBe(1);

      await card(page, 'stand-up').getByRole('button', { name: 'Edit' }).click();
      const edit = card(page, 'stand-up').locator('form.edit-job');
      expect(await edit.getByLabel('Cron').inputValue()).toBe('0 9 * * 1-5');
      await edit.getByLabel('Message').fill('stand-up, moved');
      await edit.getByLabel('Cron').fill('30 8 * * *');
      await edit.getByRole('button', { name: 'Save changes' }).click();
      await expect
        .poll(() => card(page, 'stand-up, moved').locator('.job-facts').textContent(), WAIT)
        .toContain('cron 30 8 * * * (Europe/Berlin)');
      // A refusal shows in the card, naming the field.
      await card(page, 'stand-up, moved').getByRole('button', { name: 'Edit' }).click();
      await card(page, 'stand-up, moved').locator('form.edit-job').getByLabel('Cron').fill('0 25 * * *');
      await card(page, 'stand-up, moved').getByRole('button', { name: 'Save changes' }).click();
      await expect
        .poll(() => card(page, 'stand-up, moved').locator('[role="alert"]').textContent(), WAIT)
        .toContain('the hour field "25" is invalid');
      await card(page, 'stand-up, moved').getByRole('button', { name: 'Edit' }).click();
      await saveScreenshot(page, shots, 'schedules-1280');

      await card(page, 'check the deploy').getByRole('button', { name: 'Cancel job' }).click();
      await expect.poll(() => card(page, 'check the deploy').count(), WAIT).toBe(0);
      await page.getByLabel(/Show ended jobs/).check();
      await expect
        .poll(() => card(page, 'check the deploy').locator('.badge').textContent(), WAIT)
        .toBe('cancelled');
    } finally {
      await page.close();
    }
    expect(pageErrors).toEqual([]);
  });

  it('fits a 390 px phone', async () => {
    const page = await open('schedules', VIEWPORTS.phone);
    try {
      await card(page, 'stand-up, moved').waitFor(WAIT);
      await expectNoOverflow(page);
      await saveScreenshot(page, shots, 'schedules-390');
    } finally {
      await page.close();
    }
    expect(pageErrors).toEqual([]);
  });

  it('tails the log live, filtered by level and text, with no secret in it', async () => {
    const page = await open('logs', VIEWPORTS.desktop);
    try {
      await expect.poll(() => page.locator('.log-line').count(), WAIT).toBeGreaterThan(0);
      // A line written after the page opened arrives by itself (a refused WebUI input is logged at info).
      const refused = await gateway.request(
        'POST',
        '/api/projects/default/tool-ui/scheduler/schedule.pause',
        {
          id: 'sch_not-there',
        },
      );
      expect(refused.status).toBe(400);
      await page.locator('.log-line', { hasText: 'sch_not-there' }).waitFor(WAIT);

      await page.getByLabel('Text').fill('SCH_NOT-THERE');
      await page.getByLabel('Text').press('Enter');
      await expect
        .poll(() => page.locator('.log-line').allTextContents(), WAIT)
        .toEqual([expect.stringMatching(/INFO .*sch_not-there/)]);
      await saveScreenshot(page, shots, 'logs-1280');
      await page.getByLabel('Level').selectOption('warn');
      await expect.poll(() => page.locator('.log-line').count(), WAIT).toBe(0);
      await page.getByLabel('Text').fill('');
      await page.getByLabel('Text').press('Enter');
      const levels = await page
        .locator('.log-line')
        .evaluateAll((lines) => lines.map((line) => line.dataset.level));
      expect(levels.every((level) => ['warn', 'error', 'fatal'].includes(level ?? ''))).toBe(true);
      // The gateway token (a secret of this config) signed the browser in with ?token=: never in the log.
      const all = await gateway.request('GET', '/api/logs?level=trace');
      expect(all.status).toBe(200);
      expect(JSON.stringify(all.body)).not.toContain(gateway.token);
      expect(await page.locator('main').textContent()).not.toContain(gateway.token);
      expect((await gateway.request('GET', '/api/logs?level=loud')).status).toBe(400);
      expect((await gateway.request('GET', '/api/logs?after=-1')).status).toBe(400);
    } finally {
      await page.close();
    }
    expect(pageErrors).toEqual([]);
  });

  it('the Logs page fits a 390 px phone', async () => {
    const page = await open('logs', VIEWPORTS.phone);
    try {
      await expect.poll(() => page.locator('.log-line').count(), WAIT).toBeGreaterThan(0);
      await expectNoOverflow(page);
      await saveScreenshot(page, shots, 'logs-390');
    } finally {
      await page.close();
    }
    expect(pageErrors).toEqual([]);
  });
});
