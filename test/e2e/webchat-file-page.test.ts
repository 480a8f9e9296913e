import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import { createWebchatAdapter, type WebchatAdapter } from '../../src/surfaces/channels/index.js';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import { openControlUi, saveScreenshot } from '../helpers/control-ui.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { startWebchatPageServer } from '../helpers/webchat-page-server.js';

/**
 * A file sent to the web chat (`chat.attach`) in Chromium: the bubble shows the comment and a
 * download link, and the link, fetched with the page's cookie, gives the same bytes. The screenshot
 * goes under the test's temp dir (printed).
 */

const WAIT = { timeout: 10_000, interval: 50 };
const TOKEN = 'file-page-token-0123456789';
const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });
const route = { channel: 'webchat' as const, chatType: 'direct' as const, chatId: 'local' };

describe('a file in the web chat page', () => {
  let browser: Browser;
  let server: Awaited<ReturnType<typeof startWebchatPageServer>>;
  let webchat: WebchatAdapter;
  let url: string;
  let dir: string;

  beforeAll(async () => {
    dir = await makeTempDir('webchat-file-page-');
    webchat = createWebchatAdapter({ logger, filesDir: dir });
    await webchat.start(async () => ({ sessionKey: 'agent:main:webchat:direct:local', replies: [] }));
    server = await startWebchatPageServer({ token: TOKEN, logger, webchat });
    url = server.url;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await closeBrowser(browser);
    await webchat?.stop();
    await server?.close();
    await removeDir(dir);
  });

  it('shows the comment and a link that downloads the file', async () => {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await openControlUi(page, url, TOKEN, 'chat');
    await expect
      .poll(() => page.locator('#connection').textContent(), WAIT)
      .toBe('connected as webchat:local');
    await webchat.sendFile?.(route, {
      name: 'load report.csv',
      bytes: Buffer.from('day,load\n1,0.5\n'),
      comment: 'the data',
    });
    const bubble = page.locator('#log .message.agent.file');
    await expect.poll(() => bubble.locator('a').textContent(), WAIT).toBe('load_report.csv (15 B)');
    expect((await bubble.locator('.text').textContent())?.trim()).toBe('the data');
    const href = await bubble.locator('a').getAttribute('href');
    expect(href).toMatch(/^\/api\/webchat\/files\/[0-9a-f]{32}\/load_report\.csv$/);
    const body = await page.evaluate(async (link) => (await fetch(link)).text(), href ?? '');
    expect(body).toBe('day,load\n1,0.5\n');
    const shots = await makeTempDir('webchat-file-page-shots-');
    console.log(`file page screenshot: ${await saveScreenshot(page, shots, 'webchat-file')}`);
    expect(errors).toEqual([]);
  });
});
