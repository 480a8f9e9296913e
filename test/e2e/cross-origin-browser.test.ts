import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import { startToolUiServer, type ToolUiServer } from '../helpers/tool-ui-server.js';

// A signed-in browser visits a page on another port of 127.0.0.1. Its cookie (SameSite=Strict is
// per site, and every port of one host is one site) goes along with what that page sends.
const TOKEN = 'cross-origin-test-token';
const ENTRY = '/api/projects/default/tool-ui/counter/counter.fail';

/** A page on its own port that POSTs to `target` the way any page may without asking. */
function startForeignPage(target: string): Promise<Server> {
  const page = `<!doctype html><title>foreign</title><script>
fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', credentials: 'include',
  headers: { 'content-type': 'text/plain' }, body: '{}' })
  .finally(() => { document.title = 'sent'; });
</script>`;
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('a page on another local port', () => {
  const logLines: string[] = [];
  let server: ToolUiServer;
  let foreign: Server;
  let browser: Browser;

  beforeAll(async () => {
    server = await startToolUiServer({
      fixtures: ['webui-toolpacks/counter'],
      token: TOKEN,
      stats: {},
      logLines,
    });
    foreign = await startForeignPage(`${server.url}${ENTRY}`);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await closeBrowser(browser);
    await new Promise((resolve) => foreign?.close(resolve));
    await server?.close();
  });

  it('cannot run a WebUI entry with the signed-in cookie', async () => {
    const page = await browser.context.newPage();
    // Signed in: the token moves into the cookie.
    await page.goto(`${server.url}/tools?token=${TOKEN}`);
    const cookies = await browser.context.cookies(server.url);
    expect(cookies.map((cookie) => cookie.sameSite)).toEqual(['Strict']);

    const answered = page.waitForResponse((response) => response.url().endsWith(ENTRY));
    const port = (foreign.address() as AddressInfo).port;
    await page.goto(`http://127.0.0.1:${port}/`);
    const response = await answered;
    // Before the Origin rule this was 500: the cookie passed the token check and the handler ran.
    expect(response.status()).toBe(403);
    await expect.poll(() => page.title(), { timeout: 10_000, interval: 50 }).toBe('sent');
    // The handler never ran: it would have failed and logged so.
    expect(logLines.filter((line) => line.includes('counter.fail'))).toEqual([]);
    await page.close();
  });
});
