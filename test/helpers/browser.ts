import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { removeDir } from './machine.js';

/** The system's Chromium (Debian `chromium`): Playwright cannot download browsers here. */
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export interface Browser {
  context: BrowserContext;
  dir: string;
}

/**
 * A browser with its own fresh profile, or (`profileDir`) relaunched on the profile of one whose
 * context was closed: what a person closing and reopening the browser keeps (persistent cookies).
 * Playwright refuses `--user-data-dir` in `args`, so the profile directory goes through
 * `launchPersistentContext`; closing the context ends Chromium.
 */
export async function launchBrowser(
  viewport = { width: 900, height: 640 },
  profileDir?: string,
): Promise<Browser> {
  const dir = profileDir ?? (await mkdtemp(path.join(tmpdir(), 'switchboard-chromium-')));
  try {
    const context = await chromium.launchPersistentContext(dir, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport,
    });
    return { context, dir };
  } catch (error) {
    if (profileDir === undefined) await removeDir(dir);
    throw error;
  }
}

export async function closeBrowser(browser: Browser | undefined): Promise<void> {
  if (!browser) return;
  await browser.context.close();
  await removeDir(browser.dir);
}
