import path from 'node:path';
import { createLogger } from '../src/base/logging/index.js';
import { createSessionStore, type NewTranscriptEntry } from '../src/records/sessions/index.js';
import { createStore } from '../src/records/store/index.js';
import { closeBrowser, launchBrowser } from '../test/helpers/browser.js';
import { openControlUi } from '../test/helpers/control-ui.js';
import { startTestGateway } from '../test/helpers/gateway.js';
import { makeTempDir } from '../test/helpers/machine.js';
import { describeMachine, printFigures } from './report.js';

/**
 * The control UI's transcript page in real Chromium (the system's, as the e2e tests use it) for a
 * session with ENTRIES entries in the gateway's SQLite store: from navigation to the transcript's
 * DOM with the last page rendered (its last entry and "Load earlier" present), and one "Load
 * earlier" (the page below rendered). Each of RUNS runs navigates from about:blank (the bundle
 * cached, as a returning owner has it), after one warm-up. "in page" is the page's own clock
 * (performance.now() from its navigation start); "from the test" adds Playwright's round trips.
 * Not a test: nothing here asserts on speed.
 */

const ENTRIES = 1000;
const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const KEY = 'agent:main:webchat:direct:bench';
const TIMEOUT = { timeout: 30_000 };

/** A working day's rhythm: a question, a tool round and its result, an answer in Markdown. */
function entry(index: number): NewTranscriptEntry {
  switch (index % 4) {
    case 0:
      return {
        role: 'user',
        text: `Question ${index}: how is **service ${index % 7}**?`,
        senderId: 'webchat:bench',
      };
    case 1:
      return {
        role: 'assistant',
        text: '',
        toolCalls: [
          { id: `call_${index}`, name: 'status.check', arguments: `{"service":"svc-${index % 7}"}` },
        ],
      };
    case 2:
      return {
        role: 'tool',
        text: JSON.stringify({ service: `svc-${index % 7}`, healthy: true, p99: 120 + index }),
        toolCallId: `call_${index - 1}`,
        toolName: 'status.check',
      };
    default:
      return {
        role: 'assistant',
        text: `## Service ${index % 7}\n\nHealthy; p99 ${120 + index} ms.\n\n\`\`\`sh\nkubectl get pods -l app=svc-${index % 7}\n\`\`\`\n\n- one\n- two`,
      };
  }
}

async function seed(stateDir: string): Promise<void> {
  const logger = createLogger({ level: 'silent' }).logger;
  const store = await createStore({ url: undefined, stateDir, logger });
  const sessions = createSessionStore({ store });
  await sessions.ensure(KEY, {
    agentId: 'main',
    route: { channel: 'webchat', chatType: 'direct', chatId: 'bench' },
  });
  for (let index = 0; index < ENTRIES; index++) await sessions.append(KEY, entry(index));
  await store.close();
}

async function main(): Promise<void> {
  const dir = await makeTempDir('switchboard-bench-ui-');
  await seed(path.join(dir, 'data'));
  const gateway = await startTestGateway({ dir });
  const browser = await launchBrowser({ width: 1280, height: 800 });
  const inPage: number[] = [];
  const fromTest: number[] = [];
  const earlier: number[] = [];
  try {
    const page = await browser.context.newPage();
    await openControlUi(page, gateway.url, gateway.token, 'sessions');
    const last = `.transcript .entry[data-seq="${ENTRIES - 1}"]`;
    for (let run = 0; run <= RUNS; run++) {
      await page.goto('about:blank');
      const start = performance.now();
      await page.goto(`${gateway.url}/#/sessions/${encodeURIComponent(KEY)}`);
      await page.waitForSelector(last, TIMEOUT);
      await page.waitForSelector('.load-earlier', TIMEOUT);
      const total = performance.now() - start;
      const own = (await page.evaluate('performance.now()')) as number;
      const clicked = performance.now();
      await page.click('.load-earlier');
      await page.waitForSelector(`.transcript .entry[data-seq="${ENTRIES - 200}"]`, TIMEOUT);
      const more = performance.now() - clicked;
      if (run === 0) continue;
      inPage.push(own);
      fromTest.push(total);
      earlier.push(more);
    }
    const rendered = await page.$$eval('.transcript .entry', (items) => items.length);
    console.log(describeMachine());
    printFigures(
      `Control UI: a transcript of ${ENTRIES} entries, ${RUNS} runs (after one Load earlier 200 entries are loaded, ${rendered} items: tool results fold under their calls)`,
      [
        { label: 'page load, in page', values: inPage },
        { label: 'page load, from the test', values: fromTest },
        { label: 'Load earlier', values: earlier },
      ],
    );
  } finally {
    await closeBrowser(browser);
    await gateway.dispose();
  }
}

await main();
