import { readFile } from 'node:fs/promises';

/** The web assets live in `web/` at the package root: two levels up from both `src/http` and `dist/http`. */
const WEB_DIR = new URL('../../web/', import.meta.url);

/** The web chat page with its stylesheet and script inlined: one request, no CDN, works offline. */
export async function loadWebchatPage(): Promise<string> {
  const [html, css, script] = await Promise.all(
    ['webchat.html', 'webchat.css', 'webchat.js'].map((name) => readFile(new URL(name, WEB_DIR), 'utf8')),
  );
  return (html ?? '')
    .replace('<!-- webchat.css -->', () => `<style>\n${css}</style>`)
    .replace('<!-- webchat.js -->', () => `<script>\n${script}</script>`);
}
