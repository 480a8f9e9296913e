import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childRequests, toolResults, userTexts } from '../fakes/subagent-script.js';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import { startSlackForTest } from '../helpers/channels.js';
import { expectNoOverflow, openControlUi, saveScreenshot } from '../helpers/control-ui.js';
import type { TestGateway } from '../helpers/gateway.js';
import { startSubagentGateway } from '../helpers/subagent-gateway.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/*
 * The session page's sub-agents panel and reply box (web/src/session/) in the system's Chromium
 * at 390 px, against a running gateway with a scripted fake model and a fake Slack: kill and steer
 * a sub-agent from the panel, reply into a web chat session and post into a Slack thread.
 * Screenshots go under a temp dir the test prints.
 */

const PARENT = 'agent:main:webchat:direct:local';
const PHONE = { width: 390, height: 844 };
/** A label is the model's words: it must show as text, never as markup. */
const HOSTILE = '<img src=x onerror="window.__xss=1">';
const WAIT = { timeout: 15_000, interval: 100 };
const cleanups = cleanupAfterEach();
let browser: Browser | undefined;
let shots = '';

beforeAll(async () => {
  shots = await mkdtemp(path.join(tmpdir(), 'session-actions-'));
  console.log(`session actions screenshots: ${shots}/screenshots`);
  browser = await launchBrowser(PHONE);
});
afterAll(() => closeBrowser(browser));

/** The gateway with a fake model scripted per session (test/helpers/subagent-gateway.ts). */
const start = (config: Record<string, unknown> = {}) => startSubagentGateway(cleanups, config);

async function openSession(gateway: TestGateway, key: string): Promise<Page> {
  const page = await (browser as Browser).context.newPage();
  cleanups.push(() => page.close());
  await openControlUi(page, gateway.url, gateway.token, `sessions/${encodeURIComponent(key)}`);
  return page;
}

describe('the sub-agents panel in Chromium', () => {
  it('shows the children with status, model and runtime (labels as text); kills one and steers another', async () => {
    const { gateway, model, script } = await start();
    script.child('task of alpha', { hang: true });
    script.parent(
      {
        toolCalls: ['alpha', 'beta', HOSTILE].map((label) => ({
          name: 'sessions_spawn',
          arguments: { task: `task of ${label}`, label },
        })),
      },
      (request) => ({ text: `spawned ${toolResults(request).length}` }),
    );
    expect((await gateway.send('spawn three')).status).toBe(200);
    await expect.poll(() => childRequests(model.received, 'task of alpha').length, WAIT).toBe(1);

    const page = await openSession(gateway, PARENT);
    const panel = page.getByRole('region', { name: 'Sub-agents' });
    const alpha = panel.getByRole('article', { name: 'Sub-agent alpha' });
    const beta = panel.getByRole('article', { name: 'Sub-agent beta' });
    await alpha.getByText('running', { exact: true }).waitFor(WAIT);
    // beta had no hang scripted: it answered its task and ended.
    await beta.getByText('done', { exact: true }).waitFor(WAIT);
    await expect.poll(() => alpha.textContent(), WAIT).toMatch(/runtime \d+ s · model fake · agent main/);
    const hostile = panel.getByRole('article', { name: `Sub-agent ${HOSTILE}` });
    await hostile.getByText(HOSTILE, { exact: true }).waitFor(WAIT);
    expect(await panel.locator('img').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    await expectNoOverflow(page);
    await saveScreenshot(page, shots, 'subagents-panel-390');

    // Kill: asks first, then answers with /subagents' text.
    expect(await beta.getByRole('button', { name: 'Kill beta' }).count()).toBe(0);
    await alpha.getByRole('button', { name: 'Kill alpha' }).click();
    await alpha.getByRole('button', { name: 'Confirm kill' }).click();
    await panel.getByText('alpha: killed alpha.').waitFor(WAIT);
    await alpha.getByText('killed', { exact: true }).waitFor(WAIT);
    const tree = await gateway.request('GET', `/api/sessions/${encodeURIComponent(PARENT)}/subagents/tree`);
    expect(tree.body.children.find((node: any) => node.label === 'alpha').status).toBe('killed');

    // Steer the ended child: it restarts with the message, which reaches its model.
    await beta.getByRole('button', { name: 'Steer beta' }).click();
    await beta.getByRole('textbox', { name: 'Message to beta' }).fill('now write the summary');
    await saveScreenshot(page, shots, 'subagents-steer-390');
    await beta.getByRole('button', { name: 'Send steer' }).click();
    await panel.getByText('beta: Subagent restarted with the message.').waitFor(WAIT);
    await expect
      .poll(
        () =>
          childRequests(model.received, 'task of beta').some((request) =>
            userTexts(request).some((text) => text.includes('now write the summary')),
          ),
        WAIT,
      )
      .toBe(true);
    await expectNoOverflow(page);
    await page.setViewportSize({ width: 1280, height: 800 });
    await saveScreenshot(page, shots, 'subagents-panel-1280');
  });
});

describe('the reply box in Chromium', () => {
  it('replies into a web chat session, refuses an oversized reply keeping it, and posts into a Slack thread', async () => {
    const slack = await startSlackForTest(cleanups);
    const { gateway, model } = await start({
      channels: { slack: { botToken: 'xoxb-box', appToken: 'xapp-box', apiUrl: slack.apiUrl } },
    });
    await slack.connected();
    expect((await gateway.send('first')).status).toBe(200);

    const page = await openSession(gateway, PARENT);
    const box = page.getByRole('textbox', { name: 'Reply as local' });
    await box.fill('hello from the reply box');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByText('Sent.', { exact: true }).waitFor(WAIT);
    expect(await box.inputValue()).toBe('');
    await expect
      .poll(
        () => model.received.some((request) => userTexts(request).includes('hello from the reply box')),
        WAIT,
      )
      .toBe(true);

    const long = 'x'.repeat(32_001);
    await box.fill(long);
    await page.getByRole('alert').filter({ hasText: 'Too long: 32001 of at most 32000' }).waitFor(WAIT);
    expect(await page.getByRole('button', { name: 'Send', exact: true }).isDisabled()).toBe(true);
    expect(await box.inputValue()).toBe(long);
    await box.fill('');
    await expectNoOverflow(page);
    await saveScreenshot(page, shots, 'reply-box-webchat-390');

    await slack.deliver({
      type: 'message',
      channel: 'C1',
      channel_type: 'channel',
      user: 'U1',
      text: `<@${slack.botUserId}> hello`,
      ts: '300.1',
    });
    await slack.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '300.1', 15_000);
    const sessions = (await gateway.request('GET', '/api/sessions')).body.sessions;
    const slackKey = sessions.find((session: any) => session.channel === 'slack').key;
    const slackPage = await openSession(gateway, slackKey);
    await slackPage.getByRole('textbox', { name: 'Post into the Slack thread' }).fill('an operator steps in');
    await slackPage.getByRole('button', { name: 'Post', exact: true }).click();
    await slackPage.getByText('Posted into the Slack thread.').waitFor(WAIT);
    const post = await slack.waitForCall(
      'chat.postMessage',
      (call) => String(call.args.text).includes('an operator steps in'),
      15_000,
    );
    expect(post.args).toMatchObject({ channel: 'C1', thread_ts: '300.1' });
    expect(post.args.text).toBe('webchat:local (control UI): an operator steps in');
    await expectNoOverflow(slackPage);
    await saveScreenshot(slackPage, shots, 'reply-box-slack-390');

    // The gateway gone: the post is refused with the reason and its text comes back into the field.
    await gateway.stop();
    const field = slackPage.getByRole('textbox', { name: 'Post into the Slack thread' });
    await field.fill('this one will not go');
    await slackPage.getByRole('button', { name: 'Post', exact: true }).click();
    await slackPage
      .getByRole('alert')
      .filter({ hasText: 'Not sent: The gateway did not answer' })
      .waitFor(WAIT);
    expect(await field.inputValue()).toBe('this one will not go');
  });
});
