import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { closeBrowser, launchBrowser } from '../test/helpers/browser.js';
import {
  choosePort,
  createFirstHour,
  helloInSlack,
  helloInWebChat,
  interrupt,
  npmStart,
  pm2,
  pm2Start,
  setupOnTerminal,
  startFirstHourFakes,
  waitReady,
} from '../test/helpers/first-hour.js';
import { installLinked } from '../test/helpers/fresh-clone.js';
import { freePort, makeTempDir, removeDir } from '../test/helpers/machine.js';
import { childEnvironment, killRunningChildren, REPO_ROOT, runCommand } from '../test/helpers/process.js';
import { describeLoad, describeMachine, fixed, printTable } from './report.js';

/**
 * The first hour, timed step by step: the steps of test/e2e/first-hour.test.ts
 * (test/helpers/first-hour.ts) on a `git clone` of this checkout's committed HEAD, with the real
 * `npm ci` (npm's cache, the native build of better-sqlite3, then `prepare`'s build of dist/);
 * `--reuse-install` links this checkout's node_modules instead and runs `prepare` alone. Each step's
 * seconds from its start to its outcome (the guide's exit, the link printed, the reply shown…),
 * with the load average at its start. Not a test: nothing here asserts on time.
 */

const REUSE_INSTALL = process.argv.includes('--reuse-install');

async function main(): Promise<void> {
  const scratch = await makeTempDir('switchboard-bench-first-hour-');
  const clone = path.join(scratch, 'switchboard');
  const fakes = await startFirstHourFakes();
  const hour = createFirstHour({ clone, fakes, scratch, port: await freePort() });
  const browser = await launchBrowser();
  const rows: string[][] = [];
  let total = 0;
  async function step<T>(label: string, run: () => Promise<T>): Promise<T> {
    const load = describeLoad();
    console.log(`${label}…`);
    const began = performance.now();
    const result = await run();
    const seconds = (performance.now() - began) / 1000;
    total += seconds;
    console.log(`${label}: ${fixed(seconds, 1)} s (load ${load})`);
    rows.push([label, fixed(seconds, 1), load]);
    return result;
  }
  try {
    console.log(`First-hour bench: ${describeMachine()}; clone of ${REPO_ROOT}`);
    await step('git clone', async () => {
      execFileSync('git', ['clone', '--quiet', REPO_ROOT, clone]);
    });
    if (REUSE_INSTALL) await step('install: node_modules linked, prepare builds', () => installLinked(clone));
    else
      await step('npm ci (with the build)', async () => {
        // npm's own cache (not the hour's private one): what is cached is not downloaded again.
        const options = { cwd: clone, env: childEnvironment(), timeoutMs: 30 * 60_000 };
        await runCommand('npm', ['ci', '--no-audit', '--no-fund'], options);
      });
    await step('npx switchboard setup (terminal)', async () => {
      const code = await setupOnTerminal(hour);
      if (code !== 0) throw new Error(`switchboard setup exited ${code}`);
    });
    await step('npx switchboard config patch http.port', () => choosePort(hour));
    const gateway = await step('npm start → sign-in link', () => npmStart(hour));
    const page = await browser.context.newPage();
    await step('sign in, hello → web chat reply', () => helloInWebChat(page, gateway.signIn));
    await step('hello in a Slack thread → reply', () => helloInSlack(hour));
    await step('Ctrl-C → npm start ended', () => interrupt(hour, gateway.terminal));
    await step('npx pm2 start ecosystem.config.cjs', () => pm2Start(hour));
    await step('GET /readyz → 200 ready', () => waitReady(hour));
    printTable(['step', 'seconds', 'load at start'], [...rows, ['total', fixed(total, 1), describeLoad()]], {
      title: `The first hour on a fresh clone (${REUSE_INSTALL ? 'install reused' : 'real npm ci'})`,
    });
  } finally {
    await pm2(hour, 'kill').catch((error: unknown) => console.error(error));
    await killRunningChildren();
    await closeBrowser(browser);
    await fakes.close();
    await removeDir(scratch);
  }
}

await main();
