import { copyFile, mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '../../src/engine/tools/index.js';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import type { FakeSlack } from '../fakes/fake-slack.js';
import { startSessionScriptedModel } from '../fakes/subagent-script.js';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import {
  askOnDiscord,
  askOnSlack,
  startDiscordForTest,
  startGatewayForTest,
  startSlackForTest,
} from '../helpers/channels.js';
import { expectNoOverflow, openControlUi, saveScreenshot } from '../helpers/control-ui.js';
import type { TestGateway } from '../helpers/gateway.js';
import { pollUntil } from '../helpers/process.js';

// The sessions list and a transcript (web/src/pages/sessions.tsx, session.tsx) in the system's
// Chromium against a whole gateway with web chat, fake Slack and fake Discord sessions.
// Screenshots are kept under a temp dir the test prints; SWITCHBOARD_README_SHOTS=1 also writes
// the one docs/control-ui.md shows, docs/images/sessions.png.

const WAIT = { timeout: 15_000, interval: 50 };
const WAIT_MS = { timeoutMs: 15_000 };
const DISCORD_TOKEN = 'fake-discord-sessions-token';
const GUILD = '900000000000000201';
const CHANNEL = '910000000000000201';
const WEBCHAT_KEY = 'agent:main:webchat:direct:local';
const INCIDENT_KEY = 'agent:main:webchat:direct:alice:thread:incident-42';
const XSS_IMG = '<img src=x onerror="window.__xss = (window.__xss || 0) + 1">';
const XSS_LINK = '[click me](javascript:window.__xss=99)';
const LONG_KEY = 'agent:main:webchat:direct:longrun';
/** More sessions than a list page (LIST_PAGE = 50 in web/src/transcript/use-session-list.ts). */
const BULK_SESSIONS = 50;
/** Tool calls in each of two rounds: with them the long run's transcript outgrows a page (100). */
const LONG_ROUND = 55;
const REPORT = [
  '# Deploy report',
  '',
  'The **canary** is healthy.',
  '',
  '```sh',
  'kubectl rollout status deploy/api',
  '```',
  '',
  `${XSS_LINK} ${XSS_IMG}`,
].join('\n');

/** A tool that always fails: its result is an error the transcript marks. */
const failTool: Tool = {
  name: 'fail',
  description: 'Fails.',
  parameters: Type.Object({}),
  readOnly: true,
  execute: () => {
    throw new Error('the disk is full');
  },
};

/** Every `img` src in the transcript that is not a data: URL (the page allows only those). */
const foreignImages = (page: Page) =>
  page.$$eval('.transcript img', (images) =>
    images
      .map((image) => image.getAttribute('src'))
      .filter((src) => src !== null && !src.startsWith('data:')),
  );

/** A tool that answers with what it is given, as text: the result is shown as Markdown (the XSS check). */
const echoTool: Tool = {
  name: 'echo',
  description: 'Answers with its text.',
  parameters: Type.Object({ text: Type.String() }),
  readOnly: true,
  execute: (input) => `echoed: ${(input as { text: string }).text}`,
};

describe('Sessions pages in Chromium', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  let gateway: TestGateway;
  let slack: FakeSlack;
  let discord: FakeDiscord;
  let scripted: Awaited<ReturnType<typeof startSessionScriptedModel>>;
  let browser: Browser;
  let page: Page;
  let shots: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    shots = await mkdtemp(path.join(tmpdir(), 'sessions-page-'));
    console.log(`sessions page screenshots: ${shots}/screenshots`);
    scripted = await startSessionScriptedModel(cleanups);
    discord = await startDiscordForTest(cleanups, {
      token: DISCORD_TOKEN,
      guilds: [{ id: GUILD, channels: [CHANNEL] }],
    });
    slack = await startSlackForTest(cleanups);
    gateway = await startGatewayForTest(cleanups, {
      tools: [echoTool, failTool],
      config: {
        owners: ['webchat:local'],
        models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: scripted.model.url } },
        agents: { main: { model: 'fake', tools: ['echo', 'fail'] }, ops: { model: 'fake' } },
        bindings: [{ agent: 'ops', match: { channel: 'webchat', chatId: 'oncall' } }],
        // One turn at a time: a message to a second session waits (queued) behind a running one.
        session: { maxConcurrentTurns: 1 },
        channels: {
          discord: { token: DISCORD_TOKEN, apiBase: discord.apiBase },
          slack: { botToken: 'xoxb-sessions', appToken: 'xapp-sessions', apiUrl: slack.apiUrl },
        },
      },
    });
    await seedSessions();
    browser = await launchBrowser({ width: 1280, height: 800 });
    page = await browser.context.newPage();
    // A step that cannot happen fails naming itself, before the test's own timeout.
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, 120_000);

  afterAll(async () => {
    await closeBrowser(browser);
    // Last started first: the gateway before its fakes.
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  async function seedSessions(): Promise<void> {
    scripted.script(
      WEBCHAT_KEY,
      { toolCalls: [{ id: 'call_echo', name: 'echo', arguments: { text: `${XSS_IMG} ${XSS_LINK}` } }] },
      { text: REPORT },
    );
    const sent = await gateway.send(`How did the deploy go? ${XSS_IMG} ${XSS_LINK}`);
    expect(sent.status).toBe(200);
    await slack.connected();
    await askOnSlack(slack, '100.1', 'is the api up?');
    await askOnDiscord(
      discord,
      { guildId: GUILD, channelId: CHANNEL, authorId: '930000000000000201' },
      'status please',
    );
    // A few more, for a list that looks like a working day.
    await gateway.send('Page the on-call for the db alert', 'oncall');
    await gateway.send('Summarise incident 42', 'alice', 'incident-42');
  }

  it('lists the web chat, Slack and Discord sessions with agent, channel, status and unread', async () => {
    await openControlUi(page, gateway.url, gateway.token, 'sessions');
    await page.waitForSelector('.session-table tbody tr', WAIT);
    const rows = await page.$$eval('.session-table tbody tr', (trs) =>
      trs.map((tr) => ({
        key: tr.getAttribute('data-key'),
        cells: [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim()),
      })),
    );
    const channels = rows.map((row) => row.cells[2]?.split(' ')[0]);
    expect(channels).toEqual(expect.arrayContaining(['webchat', 'slack', 'discord']));
    const web = rows.find((row) => row.key === WEBCHAT_KEY);
    expect(web?.cells[1]).toBe('main');
    expect(web?.cells[4]).toBe('idle');
    // Never opened in this browser: every entry is unread (user, the tool round, the answer).
    expect(web?.cells[5]).toBe('4 new');
    expect(rows.find((row) => row.key === 'agent:ops:webchat:direct:oncall')?.cells[1]).toBe('ops');
    await page.waitForSelector('.stream-state.connected', WAIT);
    // A turn that runs a while: its row turns running live (and the screenshot's list shows one).
    const incident = INCIDENT_KEY;
    scripted.script(incident, { text: 'Still digging into the logs.', delayMs: 4000 });
    const asked = gateway.send('Any update on the root cause?', 'alice', 'incident-42');
    await page.waitForSelector(`.session-table tr[data-key="${incident}"] .badge.running`, WAIT);
    const file = await saveScreenshot(page, shots, 'sessions-1280');
    // The docs' screenshot, refreshed on demand (a normal run leaves the tree as it is).
    if (process.env.SWITCHBOARD_README_SHOTS === '1') {
      await mkdir('docs/images', { recursive: true });
      await copyFile(file, 'docs/images/sessions.png');
    }

    // Filter and search go to the server.
    await page.selectOption('.session-filters select >> nth=0', 'slack');
    await pollUntil('only the Slack session', async () => {
      const keys = await page.$$eval('.session-table tbody tr', (trs) =>
        trs.map((tr) => tr.getAttribute('data-key')),
      );
      return keys.length === 1 && keys[0]?.includes(':slack:') ? true : undefined;
    });
    await page.selectOption('.session-filters select >> nth=0', '');
    await page.fill('.session-filters input[type=search]', 'incident');
    await page.press('.session-filters input[type=search]', 'Enter');
    await pollUntil('only the incident thread', async () => {
      const keys = await page.$$eval('.session-table tbody tr', (trs) =>
        trs.map((tr) => tr.getAttribute('data-key')),
      );
      return keys.length === 1 && keys[0]?.endsWith(':thread:incident-42') ? true : undefined;
    });
    expect((await asked).status).toBe(200);
    await page.waitForSelector(`.session-table tr[data-key="${incident}"] .badge.idle`, WAIT);
  });

  it('renders a transcript: Markdown, a code block, the tool call folded under its turn, no script', async () => {
    await page.goto(`${gateway.url}/#/sessions/${encodeURIComponent(WEBCHAT_KEY)}`);
    await page.waitForSelector('.transcript .entry.assistant .markdown h1', WAIT);
    expect(await page.textContent('.transcript .markdown h1')).toBe('Deploy report');
    expect(await page.textContent('.transcript .markdown pre code')).toContain('kubectl rollout status');
    expect(await page.textContent('.transcript .markdown strong')).toBe('canary');
    // The tool call is collapsed under the assistant entry that made it, with its result inside.
    const call = page.locator('.entry.assistant details.tool-call[data-call="call_echo"]');
    expect(await call.count()).toBe(1);
    expect(await call.evaluate((details) => (details as unknown as { open: boolean }).open)).toBe(false);
    expect(await call.locator('summary').textContent()).toContain('echo');
    await call.locator('summary').click();
    expect(await call.locator('.tool-result .markdown').textContent()).toMatch(/echoed:\s+click me/);
    // The tool entry is not shown a second time on its own.
    expect(await page.locator('.transcript > .entry.tool').count()).toBe(0);
    await saveScreenshot(page, shots, 'transcript-1280');
    // Nothing ran: no handler, no javascript: link, the global never set.
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(await page.locator('[onerror]').count()).toBe(0);
    expect(await page.locator('a[href^="javascript:" i]').count()).toBe(0);
    // The user's message carried both too: its link is text or inert, its image never fetched.
    const asked = page.locator('.transcript .entry.user .markdown');
    expect(await asked.textContent()).toContain('click me');
    expect(await asked.locator('a[href^="javascript:" i], [onerror]').count()).toBe(0);
    expect(await foreignImages(page)).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('shows a message sent through the API live, queued behind another turn, then running', async () => {
    await page.goto(`${gateway.url}/#/sessions/${encodeURIComponent(WEBCHAT_KEY)}`);
    await page.waitForSelector('.stream-state.connected', WAIT);
    await page.waitForSelector('.session-meta .badge.idle', WAIT);
    // Another session's turn holds the only slot for a while.
    scripted.script(INCIDENT_KEY, { text: 'Found it: a full disk.', delayMs: 3000 });
    const blocker = gateway.send('Keep digging', 'alice', 'incident-42');
    await pollUntil('the incident turn running', async () => {
      const running = await gateway.request('GET', '/api/sessions?status=running');
      return (
        running.body.sessions.some((session: { key: string }) => session.key === INCIDENT_KEY) || undefined
      );
    });
    scripted.script(WEBCHAT_KEY, { text: 'All green now.', delayMs: 1500 });
    const sent = gateway.send('And now?');
    await page.waitForSelector('.session-meta .badge.queued', WAIT);
    await page.waitForSelector('.session-meta .badge.running', WAIT);
    expect((await blocker).status).toBe(200);
    await page.waitForSelector('.transcript .entry.user >> text=And now?', WAIT);
    await page.waitForSelector('.transcript .entry.assistant >> text=All green now.', WAIT);
    await page.waitForSelector('.session-meta .badge.idle', WAIT);
    expect((await sent).status).toBe(200);
    // Opened: the list shows nothing unread for it.
    await page.goto(`${gateway.url}/#/sessions`);
    await page.waitForSelector(`.session-table tr[data-key="${WEBCHAT_KEY}"]`, WAIT);
    expect(
      await page.textContent(`.session-table tr[data-key="${WEBCHAT_KEY}"] td[data-label="Unread"]`),
    ).toBe('—');
  });

  it('fits a 390 px phone: the list and the transcript', async () => {
    const phone = await browser.context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${gateway.url}/#/sessions`);
    await phone.waitForSelector('.session-table tbody tr', WAIT);
    await expectNoOverflow(phone);
    await saveScreenshot(phone, shots, 'sessions-390');
    await phone.goto(`${gateway.url}/#/sessions/${encodeURIComponent(WEBCHAT_KEY)}`);
    await phone.waitForSelector('.transcript .markdown pre code', WAIT);
    await phone.locator('details.tool-call summary').first().click();
    await expectNoOverflow(phone);
    await saveScreenshot(phone, shots, 'transcript-390');
    await phone.close();
  });

  it("sets a system entry (an owner's post into a Slack thread) apart", async () => {
    const list = await gateway.request('GET', '/api/sessions?channel=slack');
    const slackKey: string = list.body.sessions[0].key;
    const posted = await gateway.request('POST', `/api/sessions/${encodeURIComponent(slackKey)}/messages`, {
      text: 'Restarting the api now.',
    });
    expect(posted.status).toBe(200);
    await openControlUi(page, gateway.url, gateway.token, `sessions/${encodeURIComponent(slackKey)}`);
    const system = page.locator('.transcript .entry.system');
    await system.waitFor(WAIT);
    expect(await system.textContent()).toContain('webchat:local (control UI): Restarting the api now.');
    expect(await system.getAttribute('aria-label')).toMatch(/^System entry \d+$/);
    // Its own look, not an assistant's or a user's (a string: this runs in the page).
    const looks = (await page.evaluate(`(() => {
      const look = (selector) => {
        const style = getComputedStyle(document.querySelector(selector));
        return style.backgroundColor + ' ' + style.borderStyle;
      };
      return [look('.transcript .entry.system'), look('.transcript .entry.assistant'), look('.transcript .entry.user')];
    })()`)) as string[];
    expect(looks[0]).not.toBe(looks[1]);
    expect(looks[0]).not.toBe(looks[2]);
  });

  it('pages a long transcript back with "Load earlier" and marks a failed tool call', async () => {
    const round = (name: string) => ({
      toolCalls: Array.from({ length: LONG_ROUND }, (_, index) => ({
        id: `call_${name}_${index}`,
        name: 'echo',
        arguments: { text: `${name} ${index}` },
      })),
    });
    scripted.script(
      LONG_KEY,
      round('first'),
      round('second'),
      { toolCalls: [{ id: 'call_fail', name: 'fail', arguments: {} }] },
      { text: 'The long run is done.' },
    );
    expect((await gateway.send('Start the long run', 'longrun')).status).toBe(200);
    const whole = await gateway.request('GET', `/api/sessions/${encodeURIComponent(LONG_KEY)}/transcript`);
    expect(whole.body.entries.length).toBeGreaterThan(100);
    const firstSeq = String(whole.body.entries[0].seq);
    await openControlUi(page, gateway.url, gateway.token, `sessions/${encodeURIComponent(LONG_KEY)}`);
    await page.waitForSelector('.transcript .entry.assistant >> text=The long run is done.', WAIT);
    // The last page only: the first entries (the user's message, the first round's call) are not there.
    expect(await page.locator('.transcript .entry').first().getAttribute('data-seq')).not.toBe(firstSeq);
    expect(await page.locator('.transcript .entry.user').count()).toBe(0);
    // The failed call: its turn marked, the call's badge and result an error, the reason shown.
    const failed = page.locator('details.tool-call.error[data-call="call_fail"]');
    expect(await failed.count()).toBe(1);
    expect(await failed.locator('..').locator('..').getAttribute('class')).toContain('has-error');
    expect(await failed.locator('summary .badge').textContent()).toBe('error');
    await failed.locator('summary').click();
    expect(await failed.locator('.tool-result.error').textContent()).toContain('the disk is full');

    await page.getByRole('button', { name: 'Load earlier' }).click();
    await page.waitForSelector('.transcript .entry.user >> text=Start the long run', WAIT);
    expect(await page.locator('.transcript .entry').first().getAttribute('data-seq')).toBe(firstSeq);
    // Every result now folds under its call: none is left on its own.
    expect(await page.locator('.entry.assistant details.tool-call[data-call="call_first_0"]').count()).toBe(
      1,
    );
    expect(await page.locator('.transcript > .entry.tool').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Load earlier' }).count()).toBe(0);
    await saveScreenshot(page, shots, 'transcript-long-1280');
  });

  it('pages the list with "Load more": the older sessions appear below', async () => {
    for (let start = 0; start < BULK_SESSIONS; start += 10) {
      const batch = Array.from({ length: 10 }, (_, index) => `bulk${start + index}`);
      const answers = await Promise.all(batch.map((user) => gateway.send('hello', user)));
      expect(answers.map((answer) => answer.status)).toEqual(batch.map(() => 200));
    }
    const all = (await gateway.request('GET', '/api/sessions?limit=200')).body.sessions.map(
      (session: { key: string }) => session.key,
    ) as string[];
    expect(all.length).toBeGreaterThan(50);
    await openControlUi(page, gateway.url, gateway.token, 'sessions');
    const keys = () =>
      page.$$eval('.session-table tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-key') ?? ''));
    await pollUntil('the first page', async () => ((await keys()).length === 50 ? true : undefined), WAIT_MS);
    // The first page is the newest 50: the oldest (the seeded Slack and Discord ones) are not on it.
    expect(await keys()).toEqual(all.slice(0, 50));
    await page.getByRole('button', { name: 'Load more' }).click();
    await pollUntil(
      'the second page',
      async () => ((await keys()).length === all.length ? true : undefined),
      WAIT_MS,
    );
    expect(await keys()).toEqual(all);
    expect(all.slice(50).some((key) => key.includes(':slack:'))).toBe(true);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
