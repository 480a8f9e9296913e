import { readFile } from 'node:fs/promises';

/** The web assets live in `web/` at the package root: two levels up from both `src/http` and `dist/http`. */
const WEB_DIR = new URL('../../web/', import.meta.url);

export interface ToolsPageOptions {
  /** The project whose entries the page lists; the script reads it from a `<meta>` tag. */
  projectId: string;
  /** Whether the web chat is served at `/`, so the header links back to it. */
  chat: boolean;
}

/** The Tools page with its stylesheet and script inlined: one request, no CDN, works offline. */
export async function loadToolsPage(options: ToolsPageOptions): Promise<string> {
  const [html, css, script] = await Promise.all(
    ['tools.html', 'tools.css', 'tools.js'].map((name) => readFile(new URL(name, WEB_DIR), 'utf8')),
  );
  const project = `<meta name="switchboard-project" content="${escapeAttribute(options.projectId)}">`;
  return (html ?? '')
    .replace('<!-- project -->', () => project)
    .replace('<!-- chat-link -->', () => (options.chat ? '<a href="/">Chat</a>' : ''))
    .replace('<!-- tools.css -->', () => `<style>\n${css}</style>`)
    .replace('<!-- tools.js -->', () => `<script>\n${script}</script>`);
}

function escapeAttribute(value: string): string {
  return value.replace(/[&"<>]/g, (character) => `&#${character.charCodeAt(0)};`);
}
