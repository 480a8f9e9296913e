import { copyFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

// Every page of the control UI against one gateway that has web chat, fake Slack and fake Discord
// sessions and an approval waiting: each page shows that gateway's data, throws nothing, fits a
// 390 px phone, and leaves a screenshot at 1280 and 390 px (in a temp dir the test prints).
// SWITCHBOARD_README_SHOTS=1 also writes the README's two, docs/images/chat.png and health.png.

const DISCORD_TOKEN = 'fake-discord-tour-token';
const GUILD = '900000000000000301';
const CHANNEL = '910000000000000301';
const WEBCHAT_KEY = 'agent:main:webchat:direct:local';
const VIEWPORTS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
/** The pages whose desktop screenshot the README shows. */
const README_SHOTS = new Set(['chat', 'health']);

/** Each page, what it must show of this gateway, found by its text. */
const PAGES: { hash: string; name: string; shows: RegExp[] }[] = [
  { hash: 'chat', name: 'chat', shows: [/Which release is live\?/, /Release 4\.2 is live/] },
  {
    hash: 'sessions',
    name: 'sessions',
    // Sessions are listed by title (the chat's name, else its id, and the first words; the key on hover).
    shows: [/is the api up\?/, /status please/, /Which release is live\?/],
  },
  { hash: `sessions/${encodeURIComponent(WEBCHAT_KEY)}`, name: 'session', shows: [/Release 4\.2 is live/] },
  { hash: 'approvals', name: 'approvals', shows: [/shell\.exec/, /uptime/] },
  { hash: 'tools', name: 'tools', shows: [/Project: default/] },
  { hash: 'config', name: 'config', shows: [/channels/, /agents/] },
  { hash: 'health', name: 'health', shows: [/slack/i, /discord/i, /connected/] },
];

describe('the control UI, page by page, on a gateway with web chat, Slack and Discord', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  let gateway: TestGateway;
  let slack: FakeSlack;
  let discord: FakeDiscord;
  let browser: Browser;
  let shots: string;

  beforeAll(async () => {
    shots = await mkdtemp(path.join(tmpdir(), 'control-ui-tour-'));
    console.log(`control UI tour screenshots: ${shots}/screenshots`);
    const scripted = await startSessionScriptedModel(cleanups);
    discord = await startDiscordForTest(cleanups, {
      token: DISCORD_TOKEN,
      guilds: [{ id: GUILD, channels: [CHANNEL] }],
    });
    slack = await startSlackForTest(cleanups);
    gateway = await startGatewayForTest(cleanups, {
      config: {
        owners: ['webchat:local'],
        gateway: { drainTimeoutMs: 200 },
        tools: { toolpacks: ['core', 'shell'] },
        models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: scripted.model.url } },
        agents: { main: { model: 'fake' } },
        channels: {
          discord: { token: DISCORD_TOKEN, apiBase: discord.apiBase },
          slack: { botToken: 'xoxb-tour', appToken: 'xapp-tour', apiUrl: slack.apiUrl },
        },
      },
    });
    scripted.script(WEBCHAT_KEY, { text: '## Release 4.2 is live\n\n```sh\nkubectl get deploy api\n```' });
    expect((await gateway.send('Which release is live?')).status).toBe(200);
    await slack.connected();
    await askOnSlack(slack, '300.1', 'is the api up?');
    await askOnDiscord(
      discord,
      { guildId: GUILD, channelId: CHANNEL, authorId: '930000000000000301' },
      'status please',
    );
    // A tool call that waits for its approval: the turn stays open while the pages are visited.
    const opsKey = 'agent:main:webchat:direct:local:thread:ops';
    scripted.script(opsKey, { toolCalls: [{ name: 'shell.exec', arguments: { command: 'uptime' } }] });
    void gateway.send('How long has the box been up?', 'local', 'ops');
    await pollUntil('the approval request', async () => {
      const answer = await gateway.request('GET', '/api/approvals');
      return answer.body.open?.length === 1 ? true : undefined;
    });
    browser = await launchBrowser(VIEWPORTS.desktop);
  }, 120_000);

  afterAll(async () => {
    await closeBrowser(browser);
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    it(`shows each page's data at ${viewport.width} px, with no page error`, async () => {
      const page = await browser.context.newPage();
      await page.setViewportSize(viewport);
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      try {
        for (const target of PAGES) {
          await openControlUi(page, gateway.url, gateway.token, target.hash);
          for (const shown of target.shows) await waitForText(page, target.name, shown);
          const shot = await saveScreenshot(page, shots, `${target.name}-${viewport.width}`);
          // The README's screenshots, refreshed on demand (a normal run leaves the tree as it is).
          if (
            process.env.SWITCHBOARD_README_SHOTS === '1' &&
            size === 'desktop' &&
            README_SHOTS.has(target.name)
          )
            await copyFile(shot, `docs/images/${target.name}.png`);
          if (size === 'phone') await expectNoOverflow(page);
        }
      } finally {
        await page.close();
      }
      expect(errors).toEqual([]);
    });
  }
});

/** Waits (15 s) until the page's main region shows `text`; fails naming the page and the text. */
async function waitForText(page: Page, name: string, text: RegExp): Promise<void> {
  await pollUntil(
    `${name} page to show ${text}`,
    async () => (((await page.locator('main').textContent()) ?? '').match(text) ? true : undefined),
    { timeoutMs: 15_000 },
  );
}
