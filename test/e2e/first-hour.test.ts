import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, closeBrowser, launchBrowser } from '../helpers/browser.js';
import {
  choosePort,
  createFirstHour,
  type FirstHour,
  type FirstHourFakes,
  helloInSlack,
  helloInWebChat,
  interrupt,
  MODEL_REPLY,
  npmStart,
  pm2,
  pm2Start,
  setupOnTerminal,
  startFirstHourFakes,
  waitReady,
} from '../helpers/first-hour.js';
import { copyWorkTree, installLinked } from '../helpers/fresh-clone.js';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import { killRunningChildren, type TerminalProcess } from '../helpers/process.js';

// Issue 33, "Done when": a newcomer's first hour as one script, on a fresh clone of this checkout
// (test/helpers/first-hour.ts has the steps; bench/first-hour.ts times them). The steps run in
// order and share one clone: install, `npx switchboard setup` on a terminal (fake model, fake
// Slack), `npm start` on a terminal, the sign-in link it prints opened in Chromium, hello in the
// web chat, hello in a Slack thread (real Bolt), Ctrl-C, `npx pm2 start ecosystem.config.cjs`
// (private PM2_HOME), `/readyz`.
// Install: node_modules is linked from this checkout instead of installed (`npm ci` builds
// better-sqlite3 from source, minutes; the bench does the real one); `prepare` then builds dist/
// as `npm install` does. That is the hour's one build: no later step may build again.

let scratch: string;
let fakes: FirstHourFakes;
let hour: FirstHour;
let browser: Browser | undefined;
let gateway: { terminal: TerminalProcess; signIn: string } | undefined;
/** When the install's build wrote dist/'s stamp. */
let builtAt: number;

const clone = () => path.join(scratch, 'switchboard');
const stampTime = async () => (await stat(path.join(clone(), 'dist', '.build-stamp.json'))).mtimeMs;

beforeAll(async () => {
  scratch = await makeTempDir('switchboard-first-hour-');
  fakes = await startFirstHourFakes();
  hour = createFirstHour({ clone: clone(), fakes, scratch, port: await freePort() });
});

afterAll(async () => {
  // Always end this PM2_HOME's daemon (and the gateway under it), even when a step failed.
  if (hour) await pm2(hour, 'kill').catch((error: unknown) => console.error(error));
  await killRunningChildren();
  await closeBrowser(browser);
  await fakes?.close();
  if (scratch) await removeDir(scratch);
});

describe('the first hour on a fresh clone', { timeout: 480_000 }, () => {
  it('installs: prepare builds dist/', async () => {
    await copyWorkTree(clone());
    await installLinked(clone());
    builtAt = await stampTime();
  });

  it('npx switchboard setup on a terminal writes the config and the secrets to data/.env', async () => {
    expect(await setupOnTerminal(hour)).toBe(0);
    const secrets = parseEnv(await readFile(path.join(clone(), 'data', '.env'), 'utf8'));
    expect(Object.keys(secrets).sort()).toEqual(['MODEL_API_KEY', 'SLACK_APP_TOKEN', 'SLACK_BOT_TOKEN']);
    await choosePort(hour);
  });

  it('npm start prints a sign-in link, and the web chat answers hello through the model', async () => {
    gateway = await npmStart(hour);
    browser = await launchBrowser();
    const page = await browser.context.newPage();
    expect(await helloInWebChat(page, gateway.signIn)).toContain(MODEL_REPLY);
  });

  it('a mention in a Slack thread gets the reply in that thread', async () => {
    const reply = await helloInSlack(hour);
    expect(reply.channel).toBe('C1');
  });

  it('after Ctrl-C, pm2 starts it with the env file and /readyz is ready', async () => {
    if (!gateway) throw new Error('npm start did not run');
    await interrupt(hour, gateway.terminal);
    await pm2Start(hour);
    expect(await waitReady(hour)).toMatchObject({ ready: true, reasons: [] });
  });

  it('built dist/ once: no step after the install built again', async () => {
    expect(await stampTime(), 'dist/.build-stamp.json was written again after the install').toBe(builtAt);
  });
});
