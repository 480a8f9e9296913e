import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A platform's file host on 127.0.0.1: Slack's `url_private` (files for the right bearer token
 * only; anything else gets what Slack gives a token without `files:read`, a redirect to an HTML
 * sign-in page) or Discord's CDN (signed addresses, no token). Records every download.
 */
export interface FakeFileHost {
  /** The download address of a file added with `add`. */
  url(name: string): string;
  add(name: string, bytes: Uint8Array, type: string): void;
  /** `authorization` headers of the downloads, in order (undefined: none sent). */
  downloads: { name: string; authorization: string | undefined }[];
  /** Downloads wait (answer nothing) until the returned function is called, as a slow host does. */
  hold(): () => void;
  close(): Promise<void>;
}

export async function startFakeFileHost(
  options: {
    token?: string;
    /** Every download waits this long before it is answered (a slow host). */
    delayMs?: number;
  } = {},
): Promise<FakeFileHost> {
  const files = new Map<string, { bytes: Uint8Array; type: string }>();
  const downloads: FakeFileHost['downloads'] = [];
  let held: Promise<void> | undefined;
  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/signin') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html>Sign in</html>');
      return;
    }
    const name = decodeURIComponent(url.pathname.replace(/^\/files\//, ''));
    downloads.push({ name, authorization: request.headers.authorization });
    await held;
    if (options.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    const file = files.get(name);
    if (options.token !== undefined && request.headers.authorization !== `Bearer ${options.token}`) {
      response.writeHead(302, { location: '/signin' }).end();
      return;
    }
    if (file === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    response
      .writeHead(200, { 'content-type': file.type, 'content-length': file.bytes.byteLength })
      .end(file.bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (name) => `http://127.0.0.1:${port}/files/${encodeURIComponent(name)}`,
    add: (name, bytes, type) => void files.set(name, { bytes, type }),
    downloads,
    hold() {
      let release = () => {};
      held = new Promise<void>((resolve) => {
        release = resolve;
      });
      return () => {
        held = undefined;
        release();
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
