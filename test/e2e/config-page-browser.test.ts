import { readFile, writeFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import { expectNoOverflow, openControlUi, saveScreenshot } from '../helpers/control-ui.js';
import { startTestGateway, TEST_TOKEN, type TestGateway } from '../helpers/gateway.js';
import { freePort } from '../helpers/machine.js';

/**
 * The config page in Chromium at 390 px against a whole gateway (a fixed port, so the page finds
 * it again after each restart): an edit through the form shows its diff, is saved through the
 * gateway's editor and the page shows the restart note; a raw edit with a bad value shows the
 * refusal naming the field and keeps the text; a stale hash is explained; undo from the history.
 */

const WAIT = { timeout: 15_000, interval: 100 };
const ALICE_TOKEN = 'alice-token-0123456789abcdef';
const ALICE_NEW_TOKEN = 'alice-new-token-9876543210fedcba';
const NOTE_WAIT = { timeout: 30_000, interval: 200 };
/** Where the screenshots go: the gateway's temp dir, or a kept dir to look at them. */
const shots = (gateway: TestGateway) => process.env.SWITCHBOARD_SCREENSHOTS ?? gateway.dir;

describe('the config page in Chromium', () => {
  let gateway: TestGateway;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    gateway = await startTestGateway({
      config: {
        http: { port, token: TEST_TOKEN, users: { alice: { token: ALICE_TOKEN } } },
        log: { level: 'info' },
      },
    });
    browser = await launchBrowser({ width: 390, height: 844 });
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await openControlUi(page, gateway.url, TEST_TOKEN, 'config');
    await page.waitForSelector('form.config-form');
  });

  afterAll(async () => {
    await closeBrowser(browser);
    await gateway?.dispose();
  });

  const ownerNotes = async (): Promise<string[]> => {
    const key = encodeURIComponent('agent:main:webchat:direct:local');
    const answer = await gateway.request('GET', `/api/sessions/${key}/transcript`).catch(() => undefined);
    return answer?.body?.entries?.map((entry: { text: string }) => entry.text) ?? [];
  };

  /** Waits (through the restart: the page may be reloading) until the restart note contains `text`. */
  const expectNote = (text: string) =>
    expect
      .poll(
        () =>
          page
            .locator('.config-note')
            .textContent()
            .catch(() => ''),
        NOTE_WAIT,
      )
      .toContain(text);

  const logLevel = async () =>
    (await gateway.request('GET', '/api/config').catch(() => undefined))?.body?.config?.log?.level;

  it('edits through the form: shows the diff, saves, waits for the restart and shows its note', async () => {
    // The form comes from the schema: descriptions shown, the secret redacted, never its value.
    await page.locator('#config-section-http > summary').click();
    const token = page.locator('#config-http\\.token');
    expect(await token.getAttribute('type')).toBe('password');
    expect(await token.inputValue()).toBe('');
    expect(await token.getAttribute('placeholder')).toContain('REDACTED');
    expect(await page.content()).not.toContain(TEST_TOKEN);
    await page.evaluate(
      "document.querySelectorAll('details').forEach((section) => { section.open = true; })",
    );
    expect(await page.locator('#config-log\\.level-hint').textContent()).toContain('Minimum log level.');
    await expectNoOverflow(page);
    await saveScreenshot(page, shots(gateway), 'config-form');

    // A JSON field that does not parse stops the review, naming it.
    const bindings = page.locator('#config-bindings');
    await bindings.fill('[{ nope');
    expect(await page.locator('#config-bindings-problem').textContent()).toContain('bindings: not JSON yet');
    await page.getByRole('button', { name: 'Review change' }).click();
    expect(await page.locator('.config-form + .config-actions + [role="alert"]').textContent()).toContain(
      'bindings is not JSON yet',
    );
    expect(await page.locator('.config-review').count()).toBe(0);
    await bindings.fill('');

    await page.getByLabel('level', { exact: true }).selectOption('"debug"');
    await page.getByRole('button', { name: 'Review change' }).click();
    const diff = page.locator('.config-diff');
    await diff.waitFor();
    expect(await diff.locator('.diff-add').allTextContents()).toEqual([expect.stringContaining('"debug"')]);
    expect(await diff.locator('.diff-del').allTextContents()).toEqual([expect.stringContaining('"info"')]);
    expect(await page.locator('.config-review').textContent()).toContain('Changes log.level');
    expect(await logLevel()).toBe('info');
    await expectNoOverflow(page);
    await saveScreenshot(page, shots(gateway), 'config-diff');
    await page.setViewportSize({ width: 1280, height: 800 });
    await saveScreenshot(page, shots(gateway), 'config-diff-1280');
    await page.setViewportSize({ width: 390, height: 844 });

    await page.getByRole('button', { name: 'Save and restart' }).click();
    await page.getByText('Restarting the gateway to apply it').waitFor();
    await expectNote('Gateway restarted (config-apply): control UI config.apply by webchat:local');
    await saveScreenshot(page, shots(gateway), 'config-restarted');
    expect(await logLevel()).toBe('debug');
    // The secret shown as REDACTED was sent back as such: the file keeps it.
    expect(await readFile(gateway.configPath, 'utf8')).toContain(TEST_TOKEN);
    await page.getByRole('button', { name: 'Back to the config' }).click();
    await page.waitForSelector('form.config-form');
    expect(await page.getByLabel('level', { exact: true }).inputValue()).toBe('"debug"');
  });

  it('a secret retyped in the form is written, and neither the diff nor the page shows it', async () => {
    await page.locator('#config-section-http > summary').click();
    const alice = page.locator('#config-http\\.users\\.alice\\.token');
    expect(await alice.inputValue()).toBe('');
    await alice.fill(ALICE_NEW_TOKEN);
    await page.getByRole('button', { name: 'Review change' }).click();
    await page.locator('.config-diff').waitFor();
    expect(await page.locator('.config-review').textContent()).toContain('http.users.alice.token');
    expect(await page.locator('.config-diff').textContent()).not.toContain(ALICE_NEW_TOKEN);
    expect(await page.locator('.config-diff').textContent()).not.toContain(ALICE_TOKEN);
    await page.getByRole('button', { name: 'Save and restart' }).click();
    await expectNote('Gateway restarted (config-apply)');
    const file = await readFile(gateway.configPath, 'utf8');
    expect(file).toContain(ALICE_NEW_TOKEN);
    expect(file).not.toContain(ALICE_TOKEN);
    expect(file).toContain(TEST_TOKEN);
    const signedIn = await fetch(`${gateway.url}/api/me`, {
      headers: { authorization: `Bearer ${ALICE_NEW_TOKEN}` },
    });
    expect(((await signedIn.json()) as { user: string }).user).toBe('alice');
    await page.getByRole('button', { name: 'Back to the config' }).click();
    await page.waitForSelector('form.config-form');
    expect(await page.content()).not.toContain(ALICE_NEW_TOKEN);
  });

  it('a raw edit with a bad value: the refusal names the field and the text is kept', async () => {
    const before = (await gateway.request('GET', '/api/config')).body.hash;
    await page.getByRole('button', { name: 'Raw JSONC' }).click();
    const text = page.getByLabel(/^Config \(JSON or JSONC/);
    const edited = (await text.inputValue()).replace('"level": "debug"', '"level": "loudest"');
    expect(edited).toContain('"loudest"');
    await text.fill(edited);
    await page.getByRole('button', { name: 'Review change' }).click();
    const alert = page.locator('.config-review [role="alert"]');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('log.level');
    expect(await alert.textContent()).toContain('/log/level');
    await expectNoOverflow(page);
    await saveScreenshot(page, shots(gateway), 'config-raw-refused');
    await page.getByRole('button', { name: 'Back to editing' }).click();
    expect(await page.getByLabel(/^Config \(JSON or JSONC/).inputValue()).toBe(edited);
    expect((await gateway.request('GET', '/api/config')).body.hash).toBe(before);
  });

  it('a stale hash is explained, and the file loads again', async () => {
    const current = (await gateway.request('GET', '/api/config')).body;
    // Another owner edits meanwhile; the page is used again once that restart is over.
    const elsewhere = await gateway.request('POST', '/api/config', {
      action: 'patch',
      raw: '{ "gateway": { "drainTimeoutMs": 9000 } }',
      baseHash: current.hash,
      note: 'elsewhere',
    });
    expect(elsewhere.status, JSON.stringify(elsewhere.body)).toBe(200);
    await expect.poll(() => ownerNotes(), NOTE_WAIT).toContain('Gateway restarted (config-patch): elsewhere');
    const text = page.getByLabel(/^Config \(JSON or JSONC/);
    await text.fill((await text.inputValue()).replace('"loudest"', '"warn"'));
    await page.getByRole('button', { name: 'Review change' }).click();
    const alert = page.locator('.config-review [role="alert"]');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('the file changed meanwhile');
    await page.getByRole('button', { name: /Load the config again/ }).click();
    await expect
      .poll(() => page.locator('.config-file code').textContent(), WAIT)
      .toBe(((await gateway.request('GET', '/api/config')).body.hash as string).slice(0, 12));
  });

  it('undoes a change from the history', async () => {
    await page.getByRole('button', { name: 'History' }).click();
    const first = page.locator('.config-change').filter({ hasText: '#1 ' });
    await first.waitFor();
    expect(await first.textContent()).toContain('config.apply by webchat:local via command');
    await first.getByRole('button', { name: 'Show diff' }).click();
    await first.locator('.config-diff .diff-add').first().waitFor();
    await expectNoOverflow(page);
    await saveScreenshot(page, shots(gateway), 'config-history');
    await first.getByRole('button', { name: 'Undo…' }).click();
    await first.getByRole('button', { name: 'Undo #1 and restart' }).click();
    await expectNote('Gateway restarted (config-undo)');
    expect(await logLevel()).toBe('info');
    // The file before #1: the later changes are undone too, alice's first token among them.
    expect(await readFile(gateway.configPath, 'utf8')).toContain(ALICE_TOKEN);
    expect(pageErrors).toEqual([]);
  });
  it('a file that does not load: its errors shown, no part of it, and the whole config fixes it', async () => {
    const good = await readFile(gateway.configPath, 'utf8');
    await writeFile(gateway.configPath, good.replace('"level": "info"', '"level": "loud"'));
    await page.reload();
    const problems = page.locator('.config-page [role="alert"]');
    await problems.waitFor();
    expect(await problems.textContent()).toContain('/log/level');
    expect(await page.getByRole('button', { name: 'Form' }).isDisabled()).toBe(true);
    const text = page.getByLabel(/^Config \(JSON or JSONC/);
    expect(await text.inputValue()).toBe('');
    expect(await page.content()).not.toContain(TEST_TOKEN);
    await expectNoOverflow(page);
    await saveScreenshot(page, shots(gateway), 'config-broken');
    await text.fill(good);
    await page.getByRole('button', { name: 'Review change' }).click();
    await page.locator('.config-diff .diff-add').first().waitFor();
    await page.getByRole('button', { name: 'Save and restart' }).click();
    await expectNote('Gateway restarted (config-apply)');
    expect(await logLevel()).toBe('info');
  });
});
