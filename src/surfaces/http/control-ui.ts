import { readdir, readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { SwitchboardError } from '../../base/errors/index.js';
import { registerPageRoute } from './routes/page.js';

/** The built control UI (`vite build` of `web/`): two levels up from both `src/surfaces/http` and `dist/surfaces/http`. */
const UI_DIR = new URL('../../../web/dist/', import.meta.url);

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** The page's policy: its own scripts, styles and API only; images may also be data: URLs. */
export const CONTROL_UI_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export interface ControlUi {
  page: string;
  /** `assets/<name>` → its bytes and content type; nothing else is served from the build. */
  assets: Map<string, { body: Buffer; type: string }>;
}

/** Reads the build once at start: the page and its hashed assets. */
export async function loadControlUi(): Promise<ControlUi> {
  let page: string;
  try {
    page = await readFile(new URL('index.html', UI_DIR), 'utf8');
  } catch {
    throw new SwitchboardError(
      'GATEWAY_STATE',
      `the control UI is not built (no ${new URL('index.html', UI_DIR).pathname}): run "npm run build"`,
    );
  }
  const assets = new Map<string, { body: Buffer; type: string }>();
  const assetsDir = new URL('assets/', UI_DIR);
  for (const name of await readdir(assetsDir).catch(() => [] as string[])) {
    const type = TYPES[name.slice(name.lastIndexOf('.'))];
    if (type) assets.set(name, { body: await readFile(new URL(name, assetsDir)), type });
  }
  return { page, assets };
}

/**
 * The control UI: one page at `/` (and `/tools`, which opens on the Tools page), its pages chosen
 * by the hash. The assets are public: they are the same built code for everyone and hold no data;
 * every API call they make needs the sign-in.
 */
export function registerControlUi(app: FastifyInstance, ui: ControlUi): void {
  for (const path of ['/', '/tools']) registerPageRoute(app, path, ui.page, CONTROL_UI_CSP);
  app.get<{ Params: { name: string } }>(
    '/assets/:name',
    { config: { public: true } },
    async (request, reply) => {
      const asset = ui.assets.get(request.params.name);
      if (!asset)
        return reply.code(404).send({ error: 'not_found', message: `no asset ${request.params.name}` });
      // Names carry their content hash: a new build has new names.
      return reply
        .header('content-type', asset.type)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .send(asset.body);
    },
  );
}
