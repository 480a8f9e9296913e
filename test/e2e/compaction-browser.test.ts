import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import { openControlUi, saveScreenshot } from '../helpers/control-ui.js';
import { startTestGateway } from '../helpers/gateway.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

// A compaction entry in a session's transcript (web/src/transcript/transcript-view.tsx) in the
// system's Chromium: set apart like a system entry, saying how many entries it stands for, with the
// entries it covers still above it. Needs the built control UI (`npm run build`).

const cleanups = cleanupAfterEach();
const KEY = 'agent:main:webchat:direct:local';

describe('a compaction in the transcript page', () => {
  it('is set apart with "Compacted N entries", the compacted entries kept above it', async () => {
    const model = await startFakeOpenAIServer();
    cleanups.push(() => model.close());
    const gateway = await startTestGateway({
      config: {
        models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, contextTokens: 4096 } },
        agents: { main: { model: 'fake' } },
        // Only /compact compacts here: the turns below would pass the threshold of so small a context.
        context: { compaction: false },
      },
    });
    cleanups.push(() => gateway.dispose());
    for (const topic of ['deploys', 'alerts', 'backups', 'certificates'])
      await gateway.send(`Tell me about ${topic}. ${'Some detail. '.repeat(150)}`);
    model.push({ text: 'They asked about deploys, alerts, backups and certificates.' });
    const compacted = await gateway.send('/compact');
    expect(compacted.body.replies[0].text).toMatch(/^Compacted 6 entries into a summary/);

    const browser: Browser = await launchBrowser({ width: 1280, height: 800 });
    cleanups.push(() => closeBrowser(browser));
    const page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    await openControlUi(page, gateway.url, gateway.token, `sessions/${encodeURIComponent(KEY)}`);
    const entry = page.locator('.transcript .entry.system.compaction');
    await entry.waitFor({ timeout: 15_000 });
    expect(await entry.textContent()).toContain('Compacted 6 entries');
    expect(await entry.textContent()).toContain(
      'They asked about deploys, alerts, backups and certificates.',
    );
    expect(await page.locator('.transcript .entry.user').count()).toBe(4);
    const shots = await mkdtemp(path.join(tmpdir(), 'compaction-page-'));
    await saveScreenshot(page, shots, 'compaction');
  });
});
