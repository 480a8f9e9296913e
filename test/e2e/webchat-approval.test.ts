import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeModelServer, FakeRequest } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import { startTestGateway, TEST_TOKEN, type TestGateway } from '../helpers/gateway.js';
import { freePort } from '../helpers/machine.js';
import { cleanupAfterEach } from '../helpers/teardown.js';
import { openEvents } from '../helpers/webchat-events.js';

/**
 * An approval in the web chat, end to end: the page in Chromium → the gateway → a fake OpenAI
 * model that calls `shell.exec` (`ask` by default) → the request with its buttons on the page →
 * Chromium clicks → the decision → the command runs (or not) → the model's last reply on the page.
 * Set SWITCHBOARD_SCREENSHOTS to a directory to save the request and the decided message there.
 */

const WAIT = { timeout: 15_000, interval: 50 };
const SHOTS = process.env.SWITCHBOARD_SCREENSHOTS;
const API_KEY = 'sk-webchat-approval-0001';
const cleanups = cleanupAfterEach();

describe('approvals in the web chat, in Chromium', () => {
  let browser: Browser;
  let gateway: TestGateway;
  let model: FakeModelServer;
  let page: Page;
  let pageErrors: string[] = [];

  beforeAll(async () => {
    browser = await launchBrowser({ width: 900, height: 720 });
  });

  afterAll(async () => {
    await closeBrowser(browser);
  });

  beforeEach(async () => {
    model = await startFakeOpenAIServer();
    cleanups.push(() => model.close());
    gateway = await startTestGateway({
      config: {
        // A fixed port: after a restart the page, on the same origin, reaches the gateway again.
        http: { port: await freePort(), token: TEST_TOKEN },
        // A turn waiting for a decision cannot finish: a restart waits this long before it aborts it.
        gateway: { drainTimeoutMs: 200 },
        tools: { toolpacks: ['shell'] },
        models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: API_KEY } },
        agents: { main: { model: 'fake', displayName: 'Original' } },
      },
    });
    cleanups.push(() => gateway.dispose());
    pageErrors = [];
    page = await browser.context.newPage();
    // A locator that never matches fails the test with its own message, before the test's timeout.
    page.setDefaultTimeout(10_000);
    cleanups.push(() => page.close());
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${gateway.url}/?token=${encodeURIComponent(gateway.token)}`);
    await expect
      .poll(() => page.locator('#connection').textContent(), WAIT)
      .toBe('connected as webchat:local');
  });

  const agentBubbles = () => page.locator('#log .message.agent');
  const workspaceFile = (name: string) => path.join(gateway.dir, 'data/workspaces/main', name);
  const exists = (file: string) =>
    access(file).then(
      () => true,
      () => false,
    );

  /** The JSON result of the last tool call in a model request. */
  function lastToolResult(request: FakeRequest): any {
    const tool = request.body.messages.filter((message: any) => message.role === 'tool').at(-1);
    return JSON.parse(tool.content);
  }

  /** The model's next answers: the call of shell.exec, then a reply quoting the tool's result. */
  function scriptRun(command: string): void {
    model.push({ toolCalls: [{ name: 'shell.exec', arguments: { command } }] });
    model.push((request) => ({ text: `tool said: ${JSON.stringify(lastToolResult(request))}` }));
  }

  /** Sends a message whose turn calls shell.exec; resolves with the request bubble once its buttons show. */
  async function askToRun(command: string, options: { thenReply: boolean } = { thenReply: true }) {
    if (options.thenReply) scriptRun(command);
    else model.push({ toolCalls: [{ name: 'shell.exec', arguments: { command } }] });
    await page.locator('#text').fill('please run the command');
    await page.locator('#text').press('Enter');
    const asking = agentBubbles().filter({ has: page.locator('.actions') });
    await expect.poll(() => asking.count(), WAIT).toBe(1);
    // By its reply id: once decided it has no buttons, and the filter above no longer finds it.
    const id = await asking.first().getAttribute('data-reply');
    return page.locator(`#log .message.agent[data-reply="${id}"]`);
  }

  it('pauses the run on shell.exec, shows Approve and Deny; an outsider is refused; Approve runs it', async () => {
    const events = await openEvents(gateway, 'local');
    const request = await askToRun('echo approved > ran.txt; echo ran-it');
    expect(await request.locator('.text').textContent()).toMatch(/shell\.exec/);
    expect(await request.locator('.text').textContent()).toMatch(/\/approve [A-Z0-9]+/);
    expect(await request.getByRole('button', { name: /^Approve/ }).isVisible()).toBe(true);
    expect(await request.getByRole('button', { name: /^Deny/ }).isVisible()).toBe(true);
    // The run waits: the command has not run and the model has not been asked again.
    expect(await exists(workspaceFile('ran.txt'))).toBe(false);
    expect(model.requests).toHaveLength(1);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'webchat-approval-request.png') });

    // Someone who is not an approver posts the same button value: refused, nothing runs.
    const posted = events.events.find((event) => Array.isArray(event.data.actions));
    const approve = ((posted?.data.actions ?? []) as Array<{ label: string; value: string }>).find((action) =>
      /^Approve/.test(action.label),
    );
    const outsider = await gateway.request('POST', '/api/webchat/action', {
      action: approve?.value,
      user: 'mallory',
    });
    expect(outsider.status).toBe(200);
    expect(outsider.body.text).not.toMatch(/^Approved/);
    expect(await exists(workspaceFile('ran.txt'))).toBe(false);
    expect(await request.locator('button').count()).toBeGreaterThanOrEqual(2);

    await request.getByRole('button', { name: /^Approve/ }).click();
    await expect
      .poll(() => request.locator('.decision').textContent(), WAIT)
      .toMatch(/^Approved by webchat:local/);
    expect(await request.locator('button').count()).toBe(0);
    await expect
      .poll(() => agentBubbles().last().textContent(), WAIT)
      .toMatch(/^tool said: .*"stdout":"ran-it\\n"/);
    expect(await exists(workspaceFile('ran.txt'))).toBe(true);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'webchat-approval-approved.png') });

    // A second click on the same value (a replay) changes nothing: the command ran once.
    const again = await gateway.request('POST', '/api/webchat/action', { action: approve?.value });
    expect(again.body.text).toMatch(/already decided/i);
    expect(model.requests).toHaveLength(2);
    expect(pageErrors).toEqual([]);
  });

  it('Deny: the command does not run and the model reads the denial as the tool result', async () => {
    const request = await askToRun('echo denied > ran.txt');
    await request.getByRole('button', { name: /^Deny/ }).click();
    await expect
      .poll(() => request.locator('.decision').textContent(), WAIT)
      .toMatch(/^Denied by webchat:local/);
    expect(await request.locator('button').count()).toBe(0);
    await expect.poll(() => agentBubbles().last().textContent(), WAIT).toMatch(/^tool said: /);
    const result = lastToolResult(model.received[1] as FakeRequest);
    expect(result).toMatchObject({ status: 'denied', by: 'webchat:local' });
    expect(await exists(workspaceFile('ran.txt'))).toBe(false);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'webchat-approval-denied.png') });
    expect(pageErrors).toEqual([]);
  });

  it('a restart while the request waits: the page reconnects, and its click still resolves it, once', async () => {
    const command = 'echo once >> runs.txt; echo ran';
    const request = await askToRun(command, { thenReply: false });
    const code = /\/approve ([A-Z0-9]+)/.exec((await request.locator('.text').textContent()) ?? '')?.[1];
    expect(code).toBeDefined();
    // After the restart the kept message is answered again: the model asks for the same call, which
    // waits on the same request.
    scriptRun(command);
    await gateway.restart();
    await expect.poll(() => model.requests.length, WAIT).toBe(2);
    await expect
      .poll(() => page.locator('#connection').textContent(), WAIT)
      .toBe('connected as webchat:local');
    expect(await exists(workspaceFile('runs.txt'))).toBe(false);

    await request.getByRole('button', { name: /^Approve/ }).click();
    await expect
      .poll(() => request.locator('.decision').textContent(), WAIT)
      .toMatch(/^Approved by webchat:local/);
    await expect.poll(() => agentBubbles().last().textContent(), WAIT).toMatch(/"stdout":"ran\\n"/);
    expect(await readFile(workspaceFile('runs.txt'), 'utf8')).toBe('once\n');
    // The request was not posted a second time with buttons of its own.
    expect(
      await page.locator('#log .message.agent .text', { hasText: `Approval needed (${code})` }).count(),
    ).toBe(1);
    expect(pageErrors).toEqual([]);
  });

  it("an owner's held /config edit: Cancel writes nothing, Confirm runs it once and shows its answer", async () => {
    const before = await readFile(gateway.configPath, 'utf8');
    const held = async (command: string) => {
      const count = await agentBubbles().count();
      await page.locator('#text').fill(command);
      await page.locator('#text').press('Enter');
      await expect.poll(() => agentBubbles().count(), WAIT).toBe(count + 1);
      const bubble = agentBubbles().nth(count);
      await bubble.locator('.actions').waitFor();
      expect(await bubble.getByRole('button').allTextContents()).toEqual(['Confirm', 'Cancel']);
      return bubble;
    };

    const apply = await held('/config apply {}');
    // The diff shows as a block on the page.
    expect(await apply.locator('pre').count()).toBeGreaterThan(0);
    await apply.getByRole('button', { name: 'Cancel' }).click();
    await expect
      .poll(() => apply.locator('.decision').textContent(), WAIT)
      .toMatch(/^Cancelled by webchat:local: \/config apply/);
    expect(await readFile(gateway.configPath, 'utf8')).toBe(before);

    const removal = await held('/config patch {"agents": {"main": {"displayName": null}}}');
    expect(await readFile(gateway.configPath, 'utf8')).toBe(before);
    await removal.getByRole('button', { name: 'Confirm' }).click();
    await expect
      .poll(() => removal.locator('.decision').textContent(), WAIT)
      .toMatch(/^Confirmed by webchat:local[\s\S]*agents\.main\.displayName/);
    const after = await readFile(gateway.configPath, 'utf8');
    expect(after).not.toContain('Original');
    expect(after).toContain('"model": "fake"');
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'webchat-config-confirmed.png') });
    expect(pageErrors).toEqual([]);
  });
});
