import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import { expectNoOverflow, openControlUi, saveScreenshot } from '../helpers/control-ui.js';
import { startToolUiServer, type ToolUiServer } from '../helpers/tool-ui-server.js';

// Drives the control UI's Tools page (web/src/pages/tools.tsx) in the system's Chromium (see
// test/helpers/browser.ts); screenshots are kept under a temp dir the test prints.
const WAIT = { timeout: 15_000, interval: 50 };
const TOKEN = 'tools-page-test-token';
const STATS = { agents: 2, toolpacks: 2 };

/** The review-tools and counter fixtures behind a real HTTP server, wired as the gateway wires them. */
function startServer(): Promise<ToolUiServer> {
  return startToolUiServer({
    fixtures: ['toolpacks/review-tools', 'webui-toolpacks/counter'],
    token: TOKEN,
    stats: STATS,
    reportedProblems: [
      {
        file: '/srv/toolpacks/broken/suzumio.toolpack.json',
        rule: 'controller-missing',
        message: 'no controller',
      },
    ],
    reportedToolpacks: [
      { id: 'plan', directory: '/srv/toolpacks/plan', tools: [], webui: [], notProvided: ['store.db'] },
      { id: 'review-tools', directory: '/srv/toolpacks/review', tools: [], webui: [] },
    ],
    reportedHooks: [
      { toolpackId: 'review-tools', status: 'ok', failures: 0 },
      {
        toolpackId: 'plan',
        status: 'failing',
        failures: 7,
        error:
          "schedulerTick failed in the plan controller: Cannot read properties of undefined (reading 'prepare')",
        since: '2030-01-07T08:00:00.000Z',
        backoffMs: 3200,
        nextAttemptAt: '2030-01-07T08:00:06.350Z',
      },
    ],
  });
}

describe('Tools page in Chromium', () => {
  let server: ToolUiServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let pageErrors: string[] = [];
  let requests: string[] = [];

  let shots: string;

  beforeAll(async () => {
    shots = await mkdtemp(path.join(tmpdir(), 'tools-page-'));
    server = await startServer();
    browser = await launchBrowser({ width: 900, height: 900 });
    context = browser.context;
    context.on('request', (request) => requests.push(request.url()));
  });

  afterAll(async () => {
    await closeBrowser(browser);
    await server?.close();
  });

  beforeEach(async () => {
    pageErrors = [];
    requests = [];
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(`${message.text()} (${message.location().url})`);
    });
    await openControlUi(page, server.url, TOKEN, 'tools');
    await page.locator('#toolpacks[aria-busy="false"]').waitFor(WAIT);
  });

  afterEach(async () => {
    for (const open of context.pages()) await open.close();
  });

  const card = (entry: string) => page.locator(`article[data-entry="${entry}"]`);
  const output = (entry: string) => card(entry).locator('.result .output');
  const outputText = async (entry: string) => (await output(entry).textContent())?.trim();
  const settled = (entry: string) => card(entry).locator('.result[aria-busy="false"]').waitFor(WAIT);

  it('lists the entries grouped by toolpack and renders the panels', async () => {
    expect(await page.locator('#page-title').textContent()).toBe('Tools');
    expect(await page.locator('header.top nav a[aria-current="page"]').textContent()).toBe('Tools');
    // The old address, signed in: /tools opens the app on the same page.
    const tools = await context.newPage();
    expect((await tools.goto(`${server.url}/tools`))?.status()).toBe(200);
    await tools.locator('#toolpacks[aria-busy="false"]').waitFor(WAIT);
    expect(await tools.locator('#page-title').textContent()).toBe('Tools');
    await tools.close();
    expect(await page.locator('section.toolpack > h3').allTextContents()).toEqual([
      'review-tools',
      'counter',
    ]);
    expect(
      await page
        .locator('section[data-toolpack="counter"] article')
        .evaluateAll((cards) => cards.map((element) => element.getAttribute('data-entry'))),
    ).toEqual(['counter.value', 'counter.add', 'counter.fail']);
    expect(await page.locator('.tools-status[role="status"]').textContent()).toBe(
      'project default: 4 entries',
    );

    // JSON text is shown as it is; other text as Markdown.
    await expect.poll(() => output('review.stats').textContent(), WAIT).toBe(JSON.stringify(STATS, null, 2));
    expect(await output('review.stats').evaluate((element) => element.tagName)).toBe('PRE');
    await expect.poll(() => outputText('counter.value'), WAIT).toBe('The counter is at 0.');
    expect(await output('counter.value').locator('p').textContent()).toBe('The counter is at 0.');
    expect(await card('counter.value').locator('.result .title').textContent()).toBe('Counter');
    // Actions do not run until submitted.
    expect(await card('counter.add').locator('.result').textContent()).toBe('');
    expect(pageErrors).toEqual([]);
  });

  it('lists the toolpacks the gateway skipped, with the file and the rule', async () => {
    await expect
      .poll(() => page.locator('section.skipped li').allTextContents(), WAIT)
      .toEqual(['/srv/toolpacks/broken/suzumio.toolpack.json: no controller [controller-missing]']);
  });

  it('shows a failing scheduler hook with its error and backoff, and not the healthy ones', async () => {
    await expect
      .poll(() => page.locator('section.failing-hooks li').allTextContents(), WAIT)
      .toEqual([
        "plan: schedulerTick failed in the plan controller: Cannot read properties of undefined (reading 'prepare') (7 failures in a row since 2030-01-07T08:00:00.000Z; next try in 3.2 s)",
      ]);
  });

  it('names the Suzumio-internal APIs a toolpack reaches for that are not provided', async () => {
    await expect
      .poll(() => page.locator('section.not-provided li').allTextContents(), WAIT)
      .toEqual(['plan: store.db']);
  });

  it('builds the action form from inputSchema, with the roster as a dropdown', async () => {
    const form = card('counter.add').locator('form');
    const sender = form.locator('select[name="sender"]');
    expect(await sender.locator('option').allTextContents()).toEqual([
      'Choose…',
      'Project manager (pm)',
      'Reviewer (reviewer)',
    ]);
    expect(await sender.getAttribute('required')).not.toBeNull();
    expect(await form.locator('input[name="amount"]').getAttribute('type')).toBe('number');
    expect(await form.locator('input[name="amount"]').getAttribute('step')).toBe('1');
    expect(await form.locator('input[name="note"]').getAttribute('type')).toBe('text');
    expect(await form.locator('input[name="loud"]').getAttribute('type')).toBe('checkbox');
    expect(await form.locator('select[name="mode"] option').allTextContents()).toEqual([
      '(none)',
      'add',
      'set',
    ]);
    // The schema's default is preselected.
    expect(await form.locator('select[name="mode"] option:checked').textContent()).toBe('add');
    // Required fields carry a mark; optional ones do not.
    const marked = await form
      .locator('.field')
      .evaluateAll((fields) =>
        fields
          .filter((field) => field.querySelector('label .required'))
          .map((field) => field.querySelector('[name]')?.getAttribute('name')),
      );
    expect(marked).toEqual(['amount', 'sender']);
    // Each control is named by its label: the schema's title, else its description when short
    // (issue 33: labels from descriptions, not raw keys), the key beside it.
    expect(await form.getByLabel('Amount').getAttribute('name')).toBe('amount');
    expect(await form.getByLabel('Who changes the counter').getAttribute('name')).toBe('sender');
    expect(await form.getByLabel('sender').getAttribute('name')).toBe('sender');
    expect(await form.getByText('Who changes the counter').count()).toBe(1);
    // A field without title or description reads as its key in words, the key beside it.
    expect(await form.locator('label[for$="-note"]').textContent()).toBe('Note note');
    // The contents list each toolpack and entry; a click brings the card into view.
    await page.locator('.tools-contents').getByRole('button', { name: 'Jam the counter' }).click();
    await expect.poll(() => card('counter.fail').isVisible(), WAIT).toBe(true);
    expect(await form.locator('button').textContent()).toBe('Add');
    expect(await card('counter.fail').locator('button').textContent()).toBe('Run');
    expect(await card('counter.value').locator('button').textContent()).toBe('Refresh');
    expect(pageErrors).toEqual([]);
  });

  it('submits an action, shows its result, and the panel refreshes to see it', async () => {
    const form = card('counter.add').locator('form');
    await form.locator('input[name="amount"]').fill('3');
    await form.locator('select[name="sender"]').selectOption({ label: 'Reviewer (reviewer)' });
    await form.locator('input[name="loud"]').check();
    await form.locator('button').click();
    await expect.poll(() => outputText('counter.add'), WAIT).toBe('reviewer added 3; the counter is at 3.');
    await settled('counter.add');
    // The text as the handler sent it, under "Plain text".
    await card('counter.add').locator('details.as-sent summary').click();
    expect(await card('counter.add').locator('pre.output-text').textContent()).toBe(
      'reviewer added 3; the counter is at 3.',
    );
    const metadata = JSON.parse(
      (await card('counter.add').locator('.result details.metadata pre').textContent()) ?? '',
    );
    expect(metadata).toEqual({ count: 3, input: { amount: 3, sender: 'reviewer', mode: 'add', loud: true } });

    await card('counter.value').locator('button').click();
    await expect.poll(() => outputText('counter.value'), WAIT).toBe('The counter is at 3.');
    expect(pageErrors).toEqual([]);
  });

  it('keeps an incomplete form from being sent, and shows the API errors', async () => {
    const form = card('counter.add').locator('form');
    const before = requests.length;
    await form.locator('button').click();
    // The browser refuses the submit: amount and sender are required.
    expect(
      await form
        .locator(':invalid')
        .evaluateAll((fields) => fields.map((field) => field.getAttribute('name'))),
    ).toEqual(['amount', 'sender']);

    await card('counter.fail').locator('button').click();
    await expect
      .poll(() => card('counter.fail').locator('.result [role="alert"]').textContent(), WAIT)
      .toBe('counter.fail failed in the counter controller: the counter jammed');
    // By the time the later run has answered, a request from the refused submit would have been seen.
    expect(requests.slice(before).filter((url) => url.includes('counter.add'))).toEqual([]);
    expect(await card('counter.add').locator('.result').textContent()).toBe('');
    console.log(`tools page screenshot: ${await saveScreenshot(page, shots, 'tools-900')}`);

    const origin = new URL(server.url).origin;
    for (const url of requests) expect(new URL(url).origin).toBe(origin);
    expect(pageErrors.filter((text) => !text.includes('500'))).toEqual([]);
  });
});

describe('Tools page: hostile toolpack output and a phone', () => {
  let server: ToolUiServer;
  let browser: Browser;
  let page: Page;
  let shots: string;

  beforeAll(async () => {
    shots = await mkdtemp(path.join(tmpdir(), 'tools-page-phone-'));
    server = await startToolUiServer({
      fixtures: ['webui-toolpacks/hostile', 'webui-toolpacks/counter', '../../toolpacks/scheduler'],
      token: TOKEN,
      stats: {},
      reportedProblems: [
        {
          file: '/srv/toolpacks/a-rather-long-directory-name/that-keeps-going/suzumio.toolpack.json',
          rule: 'controller-missing',
          message: 'no controller',
        },
      ],
      toolStatus: [
        {
          tool: 'coordination.wait_for_signal_with_a_long_name',
          source: 'toolpack coordination',
          description: 'Waits.',
          enabledForAgents: ['pm', 'reviewer', 'another-agent-with-a-long-id'],
          callCount: 12,
          runningCount: 1,
          completedCount: 9,
          failedCount: 2,
          lastStatus: 'failed',
          lastAgentId: 'reviewer',
          lastAt: '2030-01-07T08:00:00.000Z',
          lastError: 'timed out waiting for signal_with_an_unbroken_identifier_that_goes_on_and_on',
        },
        {
          tool: 'messages.send',
          source: 'toolpack core',
          description: 'Sends.',
          enabledForAgents: [],
          callCount: 0,
          runningCount: 0,
          completedCount: 0,
          failedCount: 0,
        },
      ],
    });
    browser = await launchBrowser({ width: 390, height: 844 });
    page = await browser.context.newPage();
    await openControlUi(page, server.url, TOKEN, 'tools');
    await page.locator('#toolpacks[aria-busy="false"]').waitFor(WAIT);
  });

  afterAll(async () => {
    await closeBrowser(browser);
    await server?.close();
  });

  const card = (entry: string) => page.locator(`article[data-entry="${entry}"]`);

  it('renders a WebUI output with <img onerror> and javascript: links as inert Markdown', async () => {
    const output = card('hostile.panel').locator('.result .output');
    await expect.poll(() => output.locator('h1').textContent(), WAIT).toBe('Report');
    expect(await output.locator('strong').textContent()).toBe('bold');
    await card('hostile.fail').locator('button').click();
    await expect
      .poll(() => card('hostile.fail').locator('[role="alert"]').textContent(), WAIT)
      .toContain('<img src=x onerror=');
    // The payloads are text or gone: no handler, no javascript: link, no script anywhere.
    const dom = await page.evaluate(`(() => ({
      handlers: [...document.querySelectorAll('*')].filter((element) =>
        [...element.attributes].some((attribute) => attribute.name.startsWith('on'))).length,
      javascriptLinks: [...document.querySelectorAll('[href]')].filter((element) =>
        /^\\s*javascript:/i.test(element.getAttribute('href') ?? '')).length,
      inlineScripts: [...document.querySelectorAll('script')].filter((script) => !script.src).length,
      imageAttributes: [...document.querySelectorAll('#toolpacks img')].map((image) =>
        image.getAttributeNames().join(' ')),
      xss: window.__xss ?? null,
    }))()`);
    // No image element is left: only a data: image is kept as one (issue 32 §5), so an output
    // cannot make the browser send a request; `<img src=x>` shows its alt text (none here).
    expect(dom).toEqual({
      handlers: 0,
      javascriptLinks: 0,
      inlineScripts: 0,
      imageAttributes: [],
      xss: null,
    });
    // The title, the answer's title and the metric show the markup as text.
    expect(await card('hostile.panel').locator('h4').textContent()).toContain('<img src=x');
    expect(await card('hostile.panel').locator('.result .title').textContent()).toContain('<img src=x');
    expect(await card('hostile.panel').locator('.metric dt').textContent()).toContain('<img src=x');
    // The link's text is kept, without its target.
    expect(await output.getByText('open me').count()).toBe(1);
  });

  it("labels the scheduler's fields from their descriptions, a long one as the hint", async () => {
    const recurring = card('schedule.recurring');
    expect(await recurring.locator('input[name="cron"]').getAttribute('aria-describedby')).toMatch(/-hint$/);
    expect(await recurring.locator('label[for$="-cron"]').textContent()).toBe('Cron cron');
    expect(await recurring.locator('label[for$="-everyHours"]').textContent()).toBe(
      'Repeat every N hours everyHours',
    );
    expect(await recurring.locator('label[for$="-waitForQuiet"]').textContent()).toBe(
      'Wait for quiet waitForQuiet',
    );
  });

  it('reads object and array fields as JSON, and names a field whose JSON is bad without sending', async () => {
    const form = card('hostile.echo').locator('form');
    await form.getByLabel('options').fill('{"depth": 2,');
    const sent: string[] = [];
    page.on('request', (request) => sent.push(request.url()));
    await form.locator('button').click();
    await expect
      .poll(() => card('hostile.echo').locator('[role="alert"]').textContent(), WAIT)
      .toMatch(/^options: not JSON \(/);
    expect(sent.filter((url) => url.includes('hostile.echo'))).toEqual([]);
    await form.getByLabel('options').fill('{"depth": 2, "note": "<b>x</b>"}');
    await form.getByLabel('tags').fill('["a", "b"]');
    await form.locator('button').click();
    await expect
      .poll(() => card('hostile.echo').locator('pre.output').textContent(), WAIT)
      .toBe(JSON.stringify({ options: { depth: 2, note: '<b>x</b>' }, tags: ['a', 'b'] }, null, 2));
    expect(await card('hostile.echo').locator('[role="alert"]').count()).toBe(0);
  });

  it('fits a 390 px phone: no element wider than the viewport, each tool a card of labelled lines', async () => {
    // A phone opens with the first toolpack only and the per-tool status closed: open both here.
    await page.locator('section.toolpack[data-toolpack="scheduler"] h3 button').click();
    await page.locator('section.tool-status h3 button').click();
    await card('schedule.jobs').locator('.result[aria-busy="false"]').waitFor(WAIT);
    const row = page.locator('table.tool-status tr[data-tool="messages.send"]');
    await row.waitFor(WAIT);
    // Each line is labelled by its column (CSS, from data-label): a string, as the test's types have no DOM.
    const label = await page.evaluate(
      `getComputedStyle(document.querySelector('tr[data-tool="messages.send"] td'), '::before').content`,
    );
    expect(label).toBe('"From: "');
    expect(await row.locator('td').allTextContents()).toEqual([
      'toolpack core',
      'no agent',
      '0',
      '0',
      '0',
      'never called',
    ]);
    await expectNoOverflow(page);
    console.log(`tools page screenshot (390 px): ${await saveScreenshot(page, shots, 'tools-390')}`);
    await saveScreenshot(page, shots, 'tools-390-top', { fullPage: false });
    await page.locator('section.tool-status').scrollIntoViewIfNeeded();
    await saveScreenshot(page, shots, 'tools-390-status', { fullPage: false });
  });
});
