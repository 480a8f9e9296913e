import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/*
 * The control UI in Chromium: sign in once through the `?token=` link (the server moves the token
 * into the sign-in cookie), then open pages by their hash. Screenshots go under the test's own directory.
 */

/**
 * Opens `base` signed in with `token`, on the page `hash` names (`sessions`, `config`, …). One
 * load: the server's redirect (to `/`, without the token) keeps the hash, so no other page (the
 * chat, the default) runs first and asks a test server for what it does not serve.
 */
export async function openControlUi(page: Page, base: string, token: string, hash = 'chat'): Promise<void> {
  await page.goto(`${base}/?token=${encodeURIComponent(token)}#/${hash}`);
  await page.waitForSelector('header.top nav');
  expect(new URL(page.url()).search).toBe('');
}

/**
 * Saves a screenshot as `<dir>/screenshots/<name>.png` and returns its path: the full page, or only
 * the viewport with `{ fullPage: false }` (what a phone shows at its current scroll).
 */
export async function saveScreenshot(
  page: Page,
  dir: string,
  name: string,
  options: { fullPage?: boolean } = {},
): Promise<string> {
  const file = path.join(dir, 'screenshots', `${name}.png`);
  await mkdir(path.dirname(file), { recursive: true });
  await page.screenshot({ path: file, fullPage: options.fullPage ?? true });
  return file;
}

/**
 * Every element's right edge within the viewport (measured, not styled): the elements that stick
 * out, described by tag, class and width, are the failure message.
 */
export async function expectNoOverflow(page: Page): Promise<void> {
  // A string: this runs in the page, and the test's types have no DOM.
  const wide = (await page.evaluate(`(() => {
    const width = document.documentElement.clientWidth;
    return [...document.querySelectorAll('body *')]
      .filter((element) => {
        const box = element.getBoundingClientRect();
        return box.width > 0 && box.right > width + 0.5;
      })
      .slice(0, 10)
      .map((element) => element.tagName.toLowerCase() + '.' + element.className + ' right=' +
        Math.round(element.getBoundingClientRect().right) + ' > ' + width);
  })()`)) as string[];
  expect(wide).toEqual([]);
  const scroll = (await page.evaluate(
    'document.documentElement.scrollWidth - document.documentElement.clientWidth',
  )) as number;
  expect(scroll).toBeLessThanOrEqual(0);
}
