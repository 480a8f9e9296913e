import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseEnv } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { type FakeSlack, startFakeSlack } from '../fakes/fake-slack.js';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import { expectNoOverflow, saveScreenshot } from '../helpers/control-ui.js';
import { startTestGateway, TEST_TOKEN, type TestGateway } from '../helpers/gateway.js';
import { freePort } from '../helpers/machine.js';

/**
 * The Setup page (issue 33 item 1) in Chromium against a whole gateway with no model: the control
 * UI opens on it; a wrong key is refused naming the field (and the typed key is cleared); the right
 * one, with Slack, is saved, the page waits for the restart and its note, and the chat then answers.
 * At 1280 px, then at 390 px with nothing sticking out. No secret reaches the page after the save.
 */

const MODEL_KEY = 'sk-browser-good-key-0001';
const SLACK_BOT = 'xoxb-browser-bot-token-0001';
const SLACK_APP = 'xapp-browser-app-token-0001';
const NOTE_WAIT = { timeout: 30_000, interval: 200 };
/** Where the screenshots go: the gateway's temp dir, or a kept dir to look at them. */
const shots = (gateway: TestGateway) => process.env.SWITCHBOARD_SCREENSHOTS ?? gateway.dir;

describe('the Setup page in Chromium', { timeout: 90_000 }, () => {
  let gateway: TestGateway;
  let model: FakeModelServer;
  let slack: FakeSlack;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    model = await startFakeOpenAIServer({
      defaultStep: (request) =>
        request.headers.authorization === `Bearer ${MODEL_KEY}`
          ? { text: 'Hello from the fake model' }
          : { status: 401, errorMessage: 'Incorrect API key provided' },
    });
    slack = await startFakeSlack({ botToken: SLACK_BOT, appToken: SLACK_APP });
    const port = await freePort();
    gateway = await startTestGateway({
      config: { http: { port, token: TEST_TOKEN } },
      envFile: 'data/.env',
    });
    browser = await launchBrowser({ width: 1280, height: 900 });
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });

  afterAll(async () => {
    await closeBrowser(browser);
    await gateway?.dispose();
    await Promise.all([model?.close(), slack?.close()]);
  });

  const pageText = () => page.locator('main').textContent();

  it('opens on Setup while no model answers, refuses a wrong key naming the field', async () => {
    // No page named: the owner lands on Setup.
    await page.goto(`${gateway.url}/?token=${encodeURIComponent(TEST_TOKEN)}`);
    await page.waitForSelector('form.setup-form');
    expect(new URL(page.url()).hash).toBe('#/setup');
    expect(await pageText()).toContain('No model answers yet');
    await page.getByLabel('An OpenAI-compatible server (Ollama, vLLM, LM Studio, OpenRouter)').check();
    expect(await page.getByLabel('Server address (base URL)').inputValue()).toBe('http://127.0.0.1:11434/v1');
    await page.getByLabel('Server address (base URL)').fill(model.url);
    await page.getByLabel('Model id').fill('fake-model');
    const key = page.getByLabel('API key');
    expect(await key.getAttribute('type')).toBe('password');
    await key.fill('sk-wrong-key');
    await page.getByLabel('Connect Slack').check();
    expect(await page.locator('.setup-manifest pre').textContent()).toContain('socket_mode_enabled: true');
    await page.getByLabel('Bot token (xoxb-…)').fill(SLACK_BOT);
    await page.getByLabel('App-level token (xapp-…)').fill(SLACK_APP);
    await page.locator('.setup-advanced summary').first().click();
    await page.getByLabel('Slack Web API URL').fill(slack.apiUrl);
    await page.getByLabel('Other owners').fill('slack:U0OWNER1');
    await saveScreenshot(page, shots(gateway), 'setup-1280');

    await page.getByRole('button', { name: 'Check and save' }).click();
    const refusal = page.locator('#setup-refusal');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/^model\.apiKey: the model did not answer: .*401/);
    // The refused key is typed again; the focus is on it; the Slack tokens stay for the next try.
    expect(await key.inputValue()).toBe('');
    expect(await page.evaluate('document.activeElement.id')).toBe('setup-model-apiKey');
    expect(await page.getByLabel('Bot token (xoxb-…)').inputValue()).toBe(SLACK_BOT);
    await expect(stat(path.join(gateway.dir, 'data', '.env'))).rejects.toMatchObject({ code: 'ENOENT' });
    await saveScreenshot(page, shots(gateway), 'setup-refused-1280');
  });

  it('saves the right key at 390 px: env file 0600, ${NAME} in the config, the restart and its note', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByLabel('API key').fill(MODEL_KEY);
    await expectNoOverflow(page);
    await saveScreenshot(page, shots(gateway), 'setup-390');
    await page.getByRole('button', { name: 'Check and save' }).click();
    await page.getByText('Proved and written').waitFor();
    const done = (await pageText()) ?? '';
    expect(done).toMatch(/model: openai fake-model at .* answered: "Hello from the fake model"/);
    expect(done).toContain('MODEL_API_KEY, SLACK_BOT_TOKEN, SLACK_APP_TOKEN written to');
    await expect
      .poll(
        () =>
          page
            .locator('.config-note')
            .textContent()
            .catch(() => ''),
        NOTE_WAIT,
      )
      .toContain('Gateway restarted');
    await expectNoOverflow(page);
    await saveScreenshot(page, shots(gateway), 'setup-done-390');
    // Nothing typed is left in the page: not in its text, its inputs or its markup.
    const html = await page.content();
    for (const secret of [MODEL_KEY, SLACK_BOT, SLACK_APP, 'sk-wrong-key'])
      expect(html).not.toContain(secret);

    const envFile = path.join(gateway.dir, 'data', '.env');
    expect((await stat(envFile)).mode & 0o777).toBe(0o600);
    expect(parseEnv(await readFile(envFile, 'utf8'))).toEqual({
      MODEL_API_KEY: MODEL_KEY,
      SLACK_BOT_TOKEN: SLACK_BOT,
      SLACK_APP_TOKEN: SLACK_APP,
    });
    const config = await readFile(gateway.configPath, 'utf8');
    for (const secret of [MODEL_KEY, SLACK_BOT, SLACK_APP]) expect(config).not.toContain(secret);
    expect(config).toContain('${MODEL_API_KEY}');

    // Back to setup: it now offers to keep the model and says Slack is configured; the chat answers.
    await page.getByRole('button', { name: 'Back to setup' }).click();
    await page.waitForSelector('form.setup-form');
    expect(await page.getByLabel(/^Keep default: openai fake-model/).isChecked()).toBe(true);
    expect(await pageText()).toContain('Slack is configured; set it up again');
    await saveScreenshot(page, shots(gateway), 'setup-again-390');
    await page.setViewportSize({ width: 1280, height: 900 });
    await saveScreenshot(page, shots(gateway), 'setup-again-1280');
    const reply = await gateway.send('hello');
    expect(JSON.stringify(reply.body)).toContain('Hello from the fake model');
    expect(pageErrors).toEqual([]);
  });
});
