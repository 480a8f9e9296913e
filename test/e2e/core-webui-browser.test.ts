import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { sessionOf } from '../fakes/subagent-script.js';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import { expectNoOverflow, openControlUi, saveScreenshot } from '../helpers/control-ui.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * The control UI's Tools page of a whole running gateway in Chromium: the core toolpack's built-in entries
 * (project.stats, shell.activity, messages.send) and the per-tool status table, after the agent
 * (a scripted model) really ran shell commands.
 */

const WAIT = { timeout: 15_000, interval: 50 };
const MAIN = 'agent:main:webchat:direct:local';

describe('core WebUI entries on the Tools page in Chromium', () => {
  let model: Awaited<ReturnType<typeof startFakeOpenAIServer>>;
  let gateway: TestGateway;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    let round = 0;
    model = await startFakeOpenAIServer({
      defaultStep: (request) => {
        if (sessionOf(request) !== MAIN || round++ > 0) return { text: 'ok' };
        return {
          toolCalls: [
            { name: 'shell.exec', arguments: { command: 'echo hello from the shell\necho line two' } },
            { name: 'shell.exec', arguments: { command: 'exit 7' } },
          ],
        };
      },
    });
    gateway = await startTestGateway({
      config: {
        owners: ['webchat:local'],
        tools: { toolpacks: ['core', 'shell'] },
        approvals: { tools: { 'shell.exec': 'auto' } },
        models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-test-page' } },
        agents: { main: { model: 'fake' }, ops: { model: 'fake', tools: ['messages.*'] } },
        scheduler: { tickMs: 50 },
        gateway: { drainTimeoutMs: 200 },
      },
    });
    expect((await gateway.send('run the commands')).status).toBe(200);
    browser = await launchBrowser({ width: 1000, height: 1200 });
    page = await browser.context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await openControlUi(page, gateway.url, gateway.token, 'tools');
    await page.locator('#toolpacks[aria-busy="false"]').waitFor(WAIT);
  });

  afterAll(async () => {
    await closeBrowser(browser);
    await gateway?.dispose();
    await model?.close();
  });

  const card = (entry: string) => page.locator(`article[data-entry="${entry}"]`);
  const metric = (entry: string, label: string) =>
    card(entry)
      .locator('.metric', { has: page.locator(`dt:text-is("${label}")`) })
      .locator('dd')
      .first();

  it('lists core’s and shell’s entries and renders project.stats with its metrics', async () => {
    expect(await page.locator('section.toolpack > h3').allTextContents()).toEqual(['core', 'shell']);
    await expect.poll(() => metric('project.stats', 'Agents').textContent(), WAIT).toBe('2');
    expect(await metric('project.stats', 'Tool calls').textContent()).toBe('2');
    expect(await card('project.stats').locator('.output-text').textContent()).toContain('Project: default');
  });

  it('renders shell.activity: the commands’ first lines, the failure, the counts', async () => {
    const output = card('shell.activity').locator('.result .output-text');
    await expect
      .poll(() => output.textContent(), WAIT)
      .toContain('- shell.exec: 2 (0 running, 1 completed, 1 failed)');
    const text = (await output.textContent()) ?? '';
    expect(text).toContain('main shell.exec: echo hello from the shell …(+1 lines)');
    expect(text).toContain('error: exit code 7');
    expect(text).not.toContain('line two');
    // The same text as Markdown: its "- " lines are a list, but not the count line, which is the
    // metric card (issue 33 item 7: each number shown once; it stays under "Plain text" above).
    expect(
      await card('shell.activity').locator('.result .output li', { hasText: 'error: exit code 7' }).count(),
    ).toBe(1);
    expect(
      await card('shell.activity')
        .locator('.result .output li', { hasText: 'shell.exec: 2 (0 running' })
        .count(),
    ).toBe(0);
    expect(await metric('shell.activity', 'shell.exec').textContent()).toBe('2');
  });

  it('shows per-tool status: source, allowed agents, calls and failures', async () => {
    const row = page.locator('table.tool-status tr[data-tool="shell.exec"]');
    await row.waitFor(WAIT);
    expect(await row.locator('th, td').allTextContents()).toEqual([
      'shell.exec',
      'toolpack shell',
      'main',
      '2',
      '0',
      '1',
      expect.stringMatching(/^failed by main at \d{4}-.*: exit code 7$/),
    ]);
    expect(await row.getAttribute('class')).toContain('failing');
    const send = page.locator('table.tool-status tr[data-tool="messages.send"] td');
    expect(await send.allTextContents()).toEqual([
      'toolpack core',
      'main, ops',
      '0',
      '0',
      '0',
      'never called',
    ]);
  });

  it('sends a message from the messages.send form, and the status refreshes to the agents’ roster', async () => {
    const form = card('messages.send').locator('form');
    expect(await form.locator('select[name="recipient"] option').allTextContents()).toEqual([
      '(none)',
      'user',
      'main',
      'ops',
    ]);
    // `user` is the default sender, preselected.
    expect(await form.locator('select[name="sender"] option:checked').textContent()).toBe('user');
    await form.locator('select[name="recipient"]').selectOption({ label: 'ops' });
    await form.locator('input[name="body"]').fill('hello from the page');
    await form.locator('button').click();
    await expect
      .poll(() => card('messages.send').locator('.result .output-text').textContent(), WAIT)
      .toContain('Route: user -> ops');
    await expect
      .poll(() => model.received.some((request) => sessionOf(request) === 'agent:ops:main'), WAIT)
      .toBe(true);
    // The conversation panel, user <-> ops, shows it.
    const conversation = card('messages.conversation').locator('form');
    await conversation.locator('select[name="agentA"]').selectOption({ label: 'user' });
    await conversation.locator('select[name="agentB"]').selectOption({ label: 'ops' });
    await conversation.locator('button').click();
    await expect
      .poll(() => card('messages.conversation').locator('.result .output-text').textContent(), WAIT)
      .toContain('P2 user -> ops');
    const shots = await mkdtemp(path.join(tmpdir(), 'core-webui-page-'));
    console.log(`core WebUI screenshot: ${await saveScreenshot(page, shots, 'tools-core')}`);
    // The same page on a phone: every core entry and the whole status table fit 390 px.
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoOverflow(page);
    console.log(`core WebUI screenshot (390 px): ${await saveScreenshot(page, shots, 'tools-core-390')}`);
    expect(pageErrors).toEqual([]);
  });
});
