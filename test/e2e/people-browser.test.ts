import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import { startDiscordForTest, startGatewayForTest } from '../helpers/channels.js';
import { expectNoOverflow, openControlUi, saveScreenshot } from '../helpers/control-ui.js';
import { TEST_TOKEN, type TestGateway } from '../helpers/gateway.js';
import { freePort } from '../helpers/machine.js';
import { pollUntil } from '../helpers/process.js';

/**
 * Issue 34 item 3, the People page in Chromium at 1280 and 390 px against a whole gateway (a
 * fixed port: the page finds it again after each restart) with the real discord.js against the
 * fake: an owner sees two people and their links, approves a waiting pairing code with a role and
 * unlinks one identity (each a config edit, audited with its diff); a member has no People page
 * and the API refuses them naming the role.
 */

const WAIT = { timeout: 20_000, interval: 100 };
const DISCORD_TOKEN = 'fake-discord-people-token';
const GUILD = '900000000000000701';
const D1 = '930000000000000701';
const D2 = '930000000000000702';
const D9 = '930000000000000709';
const DM_D9 = '940000000000000709';
const DM_D1 = '940000000000000701';
const LINKED_KEY = `agent:main:discord:direct:${D1}`;
const ANN_TOKEN = 'ann-token-0123456789abcdef';
const BOB_TOKEN = 'bob-token-0123456789abcdef';
const CODE = /([A-Z2-9]{4}-[A-Z2-9]{4})/;
/** What the file started, stopped after its last test, last started first. */
const started: (() => Promise<void> | void)[] = [];
const cleanups = { push: (stop: () => Promise<void> | void) => void started.push(stop) };
/** Where the screenshots go: the gateway's temp dir, or a kept dir to look at them. */
const shots = (gateway: TestGateway) => process.env.SWITCHBOARD_SCREENSHOTS ?? gateway.dir;

async function peopleInFile(
  gateway: TestGateway,
): Promise<Record<string, { role: string; identities: string[] }>> {
  return JSON.parse((await readFile(gateway.configPath, 'utf8')).replace(/^\/\/.*$/gm, '')).people;
}

async function waitForRestarts(gateway: TestGateway, count: number): Promise<void> {
  await expect
    .poll(() => gateway.host.restarts === count && gateway.host.loaded !== undefined, WAIT)
    .toBe(true);
}

/** The last change of the config's audit log and its diff. */
async function lastChange(gateway: TestGateway) {
  const history = await gateway.request('GET', '/api/config/history');
  const change = history.body.changes.at(-1);
  const diff = await gateway.request('GET', `/api/config/history/${change.number}`);
  return { change, diff: diff.body.diff as string };
}

describe('the People page in Chromium', () => {
  let discord: FakeDiscord;
  let gateway: TestGateway;
  let browser: Browser;
  let page: Page;
  let code: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    discord = await startDiscordForTest(cleanups, {
      token: DISCORD_TOKEN,
      guilds: [{ id: GUILD, channels: [] }],
    });
    const model = await startFakeOpenAIServer();
    cleanups.push(() => model.close());
    gateway = await startGatewayForTest(cleanups, {
      config: {
        http: {
          port: await freePort(),
          token: TEST_TOKEN,
          users: { ann: { token: ANN_TOKEN }, bob: { token: BOB_TOKEN } },
        },
        people: {
          ann: { role: 'owner', identities: ['webchat:ann', `discord:${D1}`], displayName: 'Ann' },
          bob: { role: 'member', identities: ['webchat:bob', `discord:${D2}`] },
        },
        channels: {
          discord: { token: DISCORD_TOKEN, apiBase: discord.apiBase, stream: false, pairing: true },
        },
        models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-people-1' } },
        agents: { main: { model: 'fake' } },
      },
    });
    // An unknown sender's direct message: a pairing code waits for an owner.
    const asked = discord.dispatchMessage({ channelId: DM_D9, authorId: D9, content: 'may I come in?' });
    const answer = await pollUntil('the pairing code', () =>
      discord.posted.find((post) => post.replyTo === asked),
    );
    code = CODE.exec(answer.content)?.[1] ?? '';
    expect(code).not.toBe('');
    // Ann's Discord direct chat: a linked session of hers.
    const hello = discord.dispatchMessage({ channelId: DM_D1, authorId: D1, content: 'hello from discord' });
    await pollUntil('the answer on Discord', () => discord.posted.find((post) => post.replyTo === hello));
    browser = await launchBrowser({ width: 1280, height: 800 });
    cleanups.push(() => closeBrowser(browser));
    page = await browser.context.newPage();
    page.setDefaultTimeout(20_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, 60_000);

  afterAll(async () => {
    for (const stop of started.splice(0).reverse()) await stop();
    expect(pageErrors).toEqual([]);
  });

  const person = (id: string) => page.locator(`li.person[data-person="${id}"]`);
  const identitiesOf = (id: string) =>
    person(id)
      .locator('li[data-identity]')
      .evaluateAll((items) => items.map((item) => item.getAttribute('data-identity')));

  it('shows an owner two people and their links, approves a pairing code with a role, unlinks an identity', async () => {
    await openControlUi(page, gateway.url, ANN_TOKEN, 'people');
    expect(await page.locator('header.top nav a', { hasText: 'People' }).count()).toBe(1);
    await page.locator('li.person').nth(1).waitFor();
    expect(await page.locator('li.person').count()).toBe(2);
    expect(await person('ann').locator('h4').textContent()).toContain('Ann');
    expect(await identitiesOf('ann')).toEqual(['webchat:ann', `discord:${D1}`]);
    expect(await identitiesOf('bob')).toEqual(['webchat:bob', `discord:${D2}`]);
    const request = page.locator(`article.pairing[data-code="${code}"]`);
    expect(await request.textContent()).toContain(`discord:${D9}`);
    await saveScreenshot(page, shots(gateway), 'people-1280');

    // Approve with a role: the sender becomes a person through the config editor, audited.
    await request.getByLabel('Role').selectOption('operator');
    await request.getByRole('button', { name: 'Approve' }).click();
    await expect
      .poll(() => page.locator('.people-page .said').textContent(), WAIT)
      .toContain(`Paired: discord:${D9} is person discord-${D9} (role operator)`);
    expect((await peopleInFile(gateway))[`discord-${D9}`]).toEqual({
      role: 'operator',
      identities: [`discord:${D9}`],
    });
    const paired = await lastChange(gateway);
    expect(paired.change).toMatchObject({ actor: 'webchat:ann', via: 'command' });
    expect(paired.diff).toContain(`+    "discord-${D9}"`);
    await waitForRestarts(gateway, 1);
    // After the restart the page shows the new person and the request is gone.
    await expect.poll(() => page.locator('li.person').count(), WAIT).toBe(3);
    expect(await page.locator('article.pairing').count()).toBe(0);

    // Unlink: asked once more, then a config edit as the owner, audited with the diff.
    await person('bob')
      .getByRole('button', { name: `Unlink discord:${D2} from bob` })
      .click();
    await saveScreenshot(page, shots(gateway), 'people-unlink-ask-1280');
    await person('bob')
      .getByRole('button', { name: `Yes, unlink discord:${D2} from bob` })
      .click();
    await expect
      .poll(() => page.locator('.people-page .said').textContent(), WAIT)
      .toContain(`discord:${D2} removed from person bob (left: webchat:bob)`);
    expect((await peopleInFile(gateway)).bob).toEqual({ role: 'member', identities: ['webchat:bob'] });
    const unlinked = await lastChange(gateway);
    expect(unlinked.change).toMatchObject({ actor: 'webchat:ann', changedPaths: ['people.bob.identities'] });
    expect(unlinked.diff).toMatch(new RegExp(`^-.*"discord:${D2}"`, 'm'));
    await waitForRestarts(gateway, 2);
    await expect.poll(() => identitiesOf('bob'), WAIT).toEqual(['webchat:bob']);
    await saveScreenshot(page, shots(gateway), 'people-after-1280');
  }, 90_000);

  it('fits a 390 px phone: nothing sticks out, every button within reach', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.locator('li.person').nth(2).waitFor();
    await expectNoOverflow(page);
    await person('ann')
      .getByRole('button', { name: `Unlink discord:${D1} from ann` })
      .click();
    await expectNoOverflow(page);
    for (const button of await page.locator('.people-page button').all()) {
      const box = await button.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
    }
    await saveScreenshot(page, shots(gateway), 'people-390');
    await person('ann').getByRole('button', { name: 'Keep' }).click();
    expect(await identitiesOf('ann')).toEqual(['webchat:ann', `discord:${D1}`]);
  }, 30_000);

  it('shows Ann her Discord direct chat in her web chat, and continues it from there', async () => {
    await page.goto(`${gateway.url}/#/chat`);
    const picker = page.getByLabel('Thread');
    const option = picker.locator(`optgroup[label="Slack and Discord"] option[value="linked:${LINKED_KEY}"]`);
    await expect.poll(() => option.count(), WAIT).toBe(1);
    // Titled as the Sessions page titles it: the name Discord gave the account, and the first words.
    expect(await option.textContent()).toBe(`Discord: user${D1} — hello from discord`);
    await picker.selectOption(`linked:${LINKED_KEY}`);
    const log = page.locator('.chat-scroll');
    await expect.poll(() => log.textContent(), WAIT).toContain('hello from discord');
    expect(await page.locator('.linked-note').textContent()).toContain(`discord:${D1}`);
    await expectNoOverflow(page);
    await saveScreenshot(page, shots(gateway), 'chat-linked-390', { fullPage: false });

    const posted = discord.posted.length;
    await page.locator('#text').fill('continuing from the web');
    await page.locator('#text').press('Enter');
    await expect.poll(() => log.locator('.message').count(), WAIT).toBe(4);
    expect(await log.textContent()).toMatch(/continuing from the web[\s\S]*ok/);
    // The same session: the Discord chat got the typed text and the answer too.
    const there = await pollUntil('both posts on Discord', () => {
      const texts = discord.posted.slice(posted).map((post) => post.content);
      return texts.length >= 2 ? texts : undefined;
    });
    expect(there).toEqual(['From the web chat: continuing from the web', 'ok']);
    const transcript = await gateway.request(
      'GET',
      `/api/sessions/${encodeURIComponent(LINKED_KEY)}/transcript`,
    );
    expect(transcript.body.entries.at(-2)).toMatchObject({
      senderId: 'webchat:ann',
      text: 'continuing from the web',
    });
    await page.setViewportSize({ width: 1280, height: 800 });
    await saveScreenshot(page, shots(gateway), 'chat-linked-1280');
    await page.setViewportSize({ width: 390, height: 844 });
  }, 60_000);

  it('gives a member no People page, and the API refuses them naming the role', async () => {
    const me = await gateway.request('GET', '/api/me', undefined, BOB_TOKEN);
    expect(me.body.pages).not.toContain('people');
    const refused = await gateway.request('GET', '/api/people', undefined, BOB_TOKEN);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(
      /^bob \(webchat:bob\), role member may not call GET \/api\/people: role member lacks it \(roles\.member\.routes: /,
    );
    const unlink = await gateway.request(
      'POST',
      '/api/people/ann/unlink',
      { identity: `discord:${D1}` },
      BOB_TOKEN,
    );
    expect(unlink.status).toBe(403);
    expect(unlink.body.message).toContain('role member may not call POST /api/people/:person/unlink');

    // Ann signs out; Bob signs in on the same browser.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.locator('.sign-in').waitFor();
    await openControlUi(page, gateway.url, BOB_TOKEN, 'people');
    expect(await page.locator('header.top nav a', { hasText: 'People' }).count()).toBe(0);
    expect(await page.getByRole('alert').textContent()).toBe(
      'The people page is not for role member; bob (webchat:bob) has that role.',
    );
    await expectNoOverflow(page);
    await saveScreenshot(page, shots(gateway), 'people-member-390');
    expect((await peopleInFile(gateway)).ann?.identities).toEqual(['webchat:ann', `discord:${D1}`]);
  }, 30_000);
});
