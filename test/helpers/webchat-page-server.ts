import type { Logger } from '../../src/base/logging/index.js';
import type { WebchatAdapter } from '../../src/surfaces/channels/index.js';
import { createControlServer } from '../../src/surfaces/control/index.js';

/**
 * The real HTTP server with only a web chat behind it, for the chat page's browser tests: no
 * sessions, no toolpacks, and a history that is always empty (the page opens on a fresh thread).
 * The caller starts and stops `webchat`; `close` stops the server.
 */
export async function startWebchatPageServer(options: {
  token: string;
  logger: Logger;
  webchat: WebchatAdapter;
}): Promise<{ url: string; close: () => Promise<void> }> {
  const server = await createControlServer({
    host: '127.0.0.1',
    port: 0,
    token: options.token,
    logger: options.logger,
    sessions: { list: async () => ({ sessions: [] }), transcript: async () => undefined } as never,
    toolpacks: { report: () => ({ toolpacks: [], builtins: [], problems: [], schedulerHooks: [] }) },
    webchatHistory: {
      threads: async () => [],
      history: async () => ({ sessionKey: 'agent:main:webchat:direct:local', status: 'idle', messages: [] }),
    },
    webchat: options.webchat,
  });
  const url = await server.listen();
  return { url, close: () => server.close() };
}
