import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokenLinks, headingSlugs, markdownLinks } from '../helpers/markdown-links.js';

// Every relative link in README.md, SECURITY.md and docs/*.md resolves: the file exists and, for
// a `#anchor` into Markdown, a heading of that file has that GitHub slug.

const root = path.resolve(import.meta.dirname, '../..');
const pages = [
  'README.md',
  'SECURITY.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

describe('the links of the README and docs/', () => {
  it.each(pages)('%s: every relative link resolves, file and anchor', (page) => {
    expect(brokenLinks(root, page)).toEqual([]);
  });

  it('the README links every page of docs/', () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const linked = new Set(markdownLinks(readme).map((link) => link.target.split('#')[0]));
    const unlinked = pages.filter((page) => page.startsWith('docs/') && !linked.has(page));
    expect(unlinked).toEqual([]);
  });

  it('the README stays a first page: under 260 lines', () => {
    const lines = readFileSync(path.join(root, 'README.md'), 'utf8').split('\n').length;
    expect(lines).toBeLessThan(260);
  });
});

describe('the link check itself', () => {
  it('slugs headings as GitHub does: lower case, punctuation dropped, spaces to hyphens, repeats numbered', () => {
    const text = [
      '# Safe mode and `/rescue`',
      '### `GET /readyz` and `GET /healthz`',
      "## The control UI's routes",
      '## Logs',
      '```sh',
      '# not a heading',
      '```',
      '## Logs',
    ].join('\n');
    expect(headingSlugs(text)).toEqual([
      'safe-mode-and-rescue',
      'get-readyz-and-get-healthz',
      'the-control-uis-routes',
      'logs',
      'logs-1',
    ]);
  });

  it('finds links outside code only, images included, web addresses left out', () => {
    const text = [
      'See [config](docs/config.md#the-start-check) and ![shot](docs/images/chat.png).',
      'Not `[code](nowhere.md)`, not <https://example.org>, not [web](https://example.org).',
      '```',
      '[fenced](nowhere.md)',
      '```',
      '[here](#logs)',
    ].join('\n');
    expect(markdownLinks(text).map((link) => link.target)).toEqual([
      'docs/config.md#the-start-check',
      'docs/images/chat.png',
      '#logs',
    ]);
  });

  it('reports a missing file and a missing anchor, naming the page and the line', () => {
    const dir = path.join(root, 'test/fixtures/markdown-links');
    expect(existsSync(dir) && statSync(dir).isDirectory()).toBe(true);
    expect(brokenLinks(dir, 'broken.md')).toEqual([
      'broken.md:3: missing.md (no such file)',
      'broken.md:4: target.md#nowhere (no heading with that slug in target.md)',
      'broken.md:5: #also-nowhere (no heading with that slug in broken.md)',
    ]);
  });
});
