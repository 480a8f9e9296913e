import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import { expectNoOverflow, openControlUi, saveScreenshot } from '../helpers/control-ui.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { REPO_ROOT } from '../helpers/process.js';

// The Tools page of a whole gateway with the example config's toolpacks (core, shell, web, the
// scheduler and plan: 19 entries) in Chromium at 1280 and 390 px (issue 33 item 7): each number is
// shown once (as a metric card, not again in the text under it), the page is short on a phone
// (the toolpacks are groups, one open at a time, the contents open the one they jump to), and an
// action's answer appears where its form is.

const WAIT = { timeout: 15_000 };
/**
 * The document's height at 390 px with the first group open: the page's head and contents, the
 * core group's six cards (~2,100 px here) and the collapsed groups, toolpack list and per-tool
 * status below it. Before this change it was 7,000–8,000 px (every group open, each number twice).
 */
const PHONE_HEIGHT_BOUND = 5_000;
/**
 * At 1280 px every group is open, the cards two by two: the scheduler's long forms and the per-tool
 * status table (~40 rows) set the floor. Before this change: 7,700 px (one column, each number twice).
 */
const DESKTOP_HEIGHT_BOUND = 7_000;

describe('the Tools page, compact', () => {
  let gateway: TestGateway;
  let browser: Browser;
  let shots: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    shots = await mkdtemp(path.join(tmpdir(), 'tools-compact-'));
    console.log(`tools page screenshots: ${shots}/screenshots`);
    gateway = await startTestGateway({
      config: {
        owners: ['webchat:local'],
        tools: {
          toolpacks: [
            'core',
            'shell',
            'web',
            { path: path.join(REPO_ROOT, 'toolpacks/scheduler'), id: 'scheduler' },
            { path: path.join(REPO_ROOT, 'toolpacks/plan'), id: 'plan' },
          ],
        },
        agents: { main: {}, ops: {} },
      },
    });
    browser = await launchBrowser({ width: 1280, height: 900 });
  }, 60_000);

  afterAll(async () => {
    await closeBrowser(browser);
    await gateway?.dispose();
  });

  async function open(width: number, height: number): Promise<Page> {
    const page = await browser.context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.setViewportSize({ width, height });
    await openControlUi(page, gateway.url, gateway.token, 'tools');
    await page.locator('#toolpacks[aria-busy="false"]').waitFor(WAIT);
    await page.locator('article[data-entry="project.stats"] .result .metric').first().waitFor(WAIT);
    await page.locator('table.tool-status').waitFor({ ...WAIT, state: 'attached' });
    return page;
  }

  const documentHeight = (page: Page) =>
    page.evaluate('document.documentElement.scrollHeight') as Promise<number>;

  /** How often `text` occurs in what the reader sees of `selector` (innerText: closed details excluded). */
  const occurrences = (page: Page, selector: string, text: string) =>
    page.evaluate(
      `(() => document.querySelector(${JSON.stringify(selector)}).innerText.split(${JSON.stringify(text)}).length - 1)()`,
    ) as Promise<number>;

  it('measures the page at 390 px: below the bound, nothing wider than the phone', async () => {
    const page = await open(390, 844);
    const height = await documentHeight(page);
    console.log(`tools page document height at 390 px: ${height} px`);
    await saveScreenshot(page, shots, 'tools-390');
    await expectNoOverflow(page);
    expect(height).toBeLessThan(PHONE_HEIGHT_BOUND);
    await saveScreenshot(page, shots, 'tools-390-top', { fullPage: false });
    await page.close();
  });

  it('at 390 px, jumps to one group open and shows an answer where its form is', async () => {
    const page = await open(390, 844);
    const group = (toolpack: string) =>
      page.locator(`section.toolpack[data-toolpack="${toolpack}"] h3 button`);
    expect(await group('core').getAttribute('aria-expanded')).toBe('true');
    expect(await group('scheduler').getAttribute('aria-expanded')).toBe('false');
    await page.locator('.tools-contents').getByRole('button', { name: 'Cancel scheduled message' }).click();
    // The scheduler alone is open now, its card at the top of the view.
    await expect.poll(() => group('scheduler').getAttribute('aria-expanded'), WAIT).toBe('true');
    expect(await group('core').getAttribute('aria-expanded')).toBe('false');
    const cancel = page.locator('article[data-entry="schedule.cancel"]');
    await expect
      .poll(() => cancel.evaluate((card) => Math.round(card.getBoundingClientRect().top)), WAIT)
      .toBeLessThan(200);
    await cancel.locator('input[name="id"]').fill('sch_missing');
    await cancel.getByRole('button', { name: 'Cancel job' }).click();
    const result = cancel.locator('.result');
    await result
      .locator('[role="alert"], .output, .output-text')
      .first()
      .waitFor({ ...WAIT, state: 'attached' });
    await cancel.locator('.result[aria-busy="false"]').waitFor(WAIT);
    // The answer is on screen where the form is: its top within the phone's 844 px view.
    const rect = await result.evaluate((element) => element.getBoundingClientRect().toJSON());
    const box = { top: Math.round(rect.top), bottom: Math.round(rect.bottom), height: 844 };
    console.log(`schedule.cancel answer at 390 px: ${JSON.stringify(box)}`);
    expect(box.top).toBeGreaterThanOrEqual(0);
    expect(box.bottom).toBeLessThanOrEqual(box.height);
    await saveScreenshot(page, shots, 'tools-390-answer', { fullPage: false });
    // The per-tool status opens on its heading (closed on a phone).
    const status = page.locator('section.tool-status h3 button');
    expect(await status.getAttribute('aria-expanded')).toBe('false');
    await status.click();
    await page.locator('table.tool-status').waitFor(WAIT);
    await expectNoOverflow(page);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('shows each number once at 1280 px', async () => {
    const page = await open(1280, 900);
    const height = await documentHeight(page);
    console.log(`tools page document height at 1280 px: ${height} px`);
    expect(height).toBeLessThan(DESKTOP_HEIGHT_BOUND);
    const stats = 'article[data-entry="project.stats"] .result';
    // "Toolpacks: 5" was a card and a line of the text under it.
    expect(await page.locator(`${stats} .metric dt`).allTextContents()).toContain('Toolpacks');
    expect(await occurrences(page, stats, 'Toolpacks')).toBe(1);
    expect(await occurrences(page, stats, 'Messages')).toBe(1);
    await saveScreenshot(page, shots, 'tools-1280');
    await page.locator('article[data-entry="project.stats"]').scrollIntoViewIfNeeded();
    await saveScreenshot(page, shots, 'tools-1280-stats', { fullPage: false });
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("aligns the Schedules page's run history like the other tables", async () => {
    const run = (entry: string, input: object) =>
      gateway.request('POST', `/api/projects/default/tool-ui/scheduler/${entry}`, input);
    expect((await run('schedule.recurring', { body: 'history check', cron: '0 9 * * *' })).status).toBe(200);
    const jobs = await run('schedule.jobs', {});
    const id: string = jobs.body.metadata.jobs[0].id;
    expect((await run('schedule.runNow', { id })).status).toBe(200);
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    await openControlUi(page, gateway.url, gateway.token, 'schedules');
    const history = page.locator(`li.job[data-job="${id}"] .history`);
    await expect.poll(() => history.locator('summary').textContent(), WAIT).toBe('Run history (1)');
    await history.locator('summary').click();
    const table = history.locator('table');
    await table.waitFor(WAIT);
    // The table starts at the card's left edge and spans it, as the sessions and tool tables do.
    const [tableBox, historyBox] = await Promise.all([table.boundingBox(), history.boundingBox()]);
    console.log(`run history table ${JSON.stringify(tableBox)} in ${JSON.stringify(historyBox)}`);
    expect(Math.round(tableBox?.x ?? -1)).toBe(Math.round(historyBox?.x ?? -2));
    expect(Math.round(tableBox?.width ?? -1)).toBe(Math.round(historyBox?.width ?? -2));
    await saveScreenshot(page, shots, 'schedules-history-1280', { fullPage: false });
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
