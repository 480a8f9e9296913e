import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import type { InboundMessage, ReplyAction } from '../../src/base/messages/index.js';
import { createWebchatAdapter, type WebchatAdapter } from '../../src/surfaces/channels/index.js';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import { openControlUi, saveScreenshot } from '../helpers/control-ui.js';
import { makeTempDir } from '../helpers/machine.js';
import { startWebchatPageServer } from '../helpers/webchat-page-server.js';

/**
 * The web chat page's buttons in Chromium, against the real HTTP server and web chat adapter; the
 * adapter's handler stands in for the router and answers each click at once, as the router does.
 * (test/e2e/webchat-approval.test.ts runs the same page against the whole gateway.)
 */

const WAIT = { timeout: 10_000, interval: 50 };
const TOKEN = 'page-token-0123456789';
const BUTTONS: ReplyAction[] = [
  { label: 'Approve', value: 'approval:a1:approve', style: 'primary' },
  { label: 'Deny', value: 'approval:a1:deny', style: 'danger' },
];
const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });
const route = { channel: 'webchat' as const, chatType: 'direct' as const, chatId: 'local' };

describe('web chat buttons in Chromium', () => {
  let browser: Browser;
  let server: Awaited<ReturnType<typeof startWebchatPageServer>>;
  let shots: string;
  let webchat: WebchatAdapter;
  let url: string;
  const heard: InboundMessage[] = [];
  let pageErrors: string[] = [];
  let page: Page;

  beforeAll(async () => {
    webchat = createWebchatAdapter({ logger });
    await webchat.start(async (message) => {
      heard.push(message);
      const sessionKey = 'agent:main:webchat:direct:local';
      if (message.action === 'broken') throw new Error('the router crashed');
      // A click that does not count: the answer gives the buttons back with the reason.
      if (message.action === 'stranger') {
        const actions = [{ label: 'Try', value: 'stranger' }];
        return {
          sessionKey,
          replies: [{ id: 'refused', text: 'Refused: only webchat:boss may decide', actions }],
        };
      }
      const verb = message.action?.endsWith(':deny') ? 'Denied' : 'Approved';
      return {
        sessionKey,
        replies: [{ id: `answer-${heard.length}`, text: `${verb} by ${message.senderId}` }],
      };
    });
    server = await startWebchatPageServer({ token: TOKEN, logger, webchat });
    url = server.url;
    shots = await makeTempDir('webchat-approval-page-');
    console.log(`web chat page screenshots: ${shots}/screenshots`);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await closeBrowser(browser);
    await webchat?.stop();
    await server?.close();
  });

  beforeEach(async () => {
    heard.length = 0;
    pageErrors = [];
    page = await open();
  });

  afterEach(async () => {
    for (const open of browser?.context.pages() ?? []) await open.close();
  });

  async function open(): Promise<Page> {
    const opened = await browser.context.newPage();
    opened.setDefaultTimeout(10_000);
    opened.on('pageerror', (error) => pageErrors.push(error.message));
    await openControlUi(opened, url, TOKEN, 'chat');
    await expect
      .poll(() => opened.locator('#connection').textContent(), WAIT)
      .toBe('connected as webchat:local');
    return opened;
  }

  const bubble = (on: Page, id: number) => on.locator('#log .message.agent').nth(id);

  it('shows the buttons under the reply; a click posts the value and its answer replaces them', async () => {
    const text = 'Run shell.exec?\nArguments:\n```json\n{ "command": "ls" }\n```\nApprove or deny.';
    await webchat.send(route, { id: 'q1', text, actions: BUTTONS });
    const request = bubble(page, 0);
    await expect.poll(() => request.locator('button').allTextContents(), WAIT).toEqual(['Approve', 'Deny']);
    // The fenced arguments show as a block, without the fence.
    // Markdown: the fenced arguments show as a code block, the lines around them as paragraphs.
    expect(await request.locator('.text pre code').allTextContents()).toEqual(['{ "command": "ls" }\n']);
    expect(await request.locator('.text > p').allInnerTexts()).toEqual([
      'Run shell.exec?\nArguments:',
      'Approve or deny.',
    ]);
    expect(await request.getByRole('button', { name: 'Approve' }).getAttribute('class')).toBe(
      'action primary',
    );
    expect(await request.getByRole('button', { name: 'Deny' }).getAttribute('class')).toBe('action danger');
    await saveScreenshot(page, shots, 'webchat-page-request');

    await request.getByRole('button', { name: 'Approve' }).click();
    await expect
      .poll(() => request.locator('.decision').textContent(), WAIT)
      .toBe('Approved by webchat:local');
    expect(await request.locator('button').count()).toBe(0);
    expect(heard).toEqual([
      expect.objectContaining({
        senderId: 'webchat:local',
        chatId: 'local',
        text: '',
        action: 'approval:a1:approve',
      }),
    ]);
    await saveScreenshot(page, shots, 'webchat-page-decided');
    expect(pageErrors).toEqual([]);
  });

  it("replaces the buttons on the user's other page too, and never shows them again", async () => {
    const other = await open();
    await webchat.send(route, { id: 'q2', text: 'Run it?', actions: BUTTONS });
    await expect.poll(() => bubble(other, 0).locator('button').count(), WAIT).toBe(2);
    await expect.poll(() => bubble(page, 0).locator('button').count(), WAIT).toBe(2);

    await bubble(page, 0).getByRole('button', { name: 'Deny' }).click();
    await expect
      .poll(() => bubble(other, 0).locator('.decision').textContent(), WAIT)
      .toBe('Denied by webchat:local');
    expect(await bubble(other, 0).locator('button').count()).toBe(0);
    // The same reply arriving again (a repeated event) keeps its decision, not its buttons.
    await webchat.send(route, { id: 'q2', text: 'Run it?', actions: BUTTONS });
    await webchat.send(route, { id: 'after', text: 'next' });
    await expect.poll(() => other.locator('#log .message.agent').count(), WAIT).toBe(2);
    expect(await bubble(other, 0).locator('button').count()).toBe(0);
    expect(await bubble(other, 0).locator('.decision').textContent()).toBe('Denied by webchat:local');
    expect(heard).toHaveLength(1);
    expect(pageErrors).toEqual([]);
  });

  it('keeps the buttons, usable, with the error under them when the click fails', async () => {
    await webchat.send(route, { id: 'q3', text: 'Run it?', actions: [{ label: 'Try', value: 'broken' }] });
    const request = bubble(page, 0);
    // A button without a style is neither primary nor danger.
    expect(await request.getByRole('button', { name: 'Try' }).getAttribute('class')).toBe('action plain');
    await request.getByRole('button', { name: 'Try' }).click();
    await expect
      .poll(() => request.getByRole('alert').textContent(), WAIT)
      .toBe('internal error; see the gateway log');
    expect(await request.getByRole('button', { name: 'Try' }).isEnabled()).toBe(true);
    expect(await request.locator('.decision').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it('keeps the buttons when the answer carries them (a click that did not count), the reason under them', async () => {
    await webchat.send(route, { id: 'q4', text: 'Run it?', actions: [{ label: 'Try', value: 'stranger' }] });
    const request = bubble(page, 0);
    await request.getByRole('button', { name: 'Try' }).click();
    await expect
      .poll(() => request.getByRole('alert').textContent(), WAIT)
      .toBe('Refused: only webchat:boss may decide');
    expect(await request.getByRole('button', { name: 'Try' }).isEnabled()).toBe(true);
    expect(await request.locator('.decision').count()).toBe(0);
  });

  it('streams a reply with fenced blocks: the parts add up to the text as sent', async () => {
    const parts = ['Diff:\n```diff\n-a\n', '+b\n```\n', 'then\n```sh\nls\n```'];
    for (const delta of parts) webchat.sendDelta?.(route, { id: 's1', delta });
    const streamed = bubble(page, 0);
    await expect
      .poll(() => streamed.locator('pre code').allTextContents(), WAIT)
      .toEqual(['-a\n+b\n', 'ls\n']);
    // An open fence in a part shows as a block at once (Markdown ends it at the text's end).
    await webchat.send(route, { id: 's1', text: parts.join('') });
    await expect.poll(() => streamed.getAttribute('class'), WAIT).toBe('message agent');
    expect(await streamed.locator('pre code').allTextContents()).toEqual(['-a\n+b\n', 'ls\n']);
    expect(await streamed.locator('.text > p').allTextContents()).toEqual(['Diff:', 'then']);
    expect(pageErrors).toEqual([]);
  });
});
