import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { expect } from 'vitest';
import { z } from 'zod';

const require = createRequire(import.meta.url);

/** The entry file of an installed MCP server package (its `bin`), run with this Node. */
export function mcpServerEntry(pkg: 'server-everything' | 'server-filesystem'): string {
  return require.resolve(`@modelcontextprotocol/${pkg}/dist/index.js`);
}

/** Runs `entry` unless the file `block` exists (then it exits at once, as a server that cannot start). */
export const GUARDED_SERVER = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../fixtures/mcp/guarded-server.mjs',
);

export interface HttpMcpServer {
  url: string;
  /** The `authorization` header of every request received. */
  authorizations: (string | undefined)[];
  /** Adds a tool `name` (echoes `text`) to every session: the SDK tells each client `list_changed`. */
  addTool(name: string): void;
  close(): Promise<void>;
}

/**
 * The SDK's own server over streamable HTTP on 127.0.0.1, with tools `shout` (upper-cases
 * `text`) and `big` (answers `bytes` characters). One session per `initialize`, so a gateway that restarts connects again.
 */
export async function startHttpMcpServer(): Promise<HttpMcpServer> {
  const authorizations: (string | undefined)[] = [];
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const servers: McpServer[] = [];
  const server: Server = createServer((request, response) => {
    authorizations.push(request.headers.authorization);
    void readBody(request).then(async (body) => {
      const id = request.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? transports.get(id) : undefined;
      if (!transport) {
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sessionId) => void transports.set(sessionId, created),
        });
        const mcp = createShoutServer();
        servers.push(mcp);
        await mcp.connect(created);
        transport = created;
      }
      await transport.handleRequest(request, response, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    authorizations,
    addTool(name) {
      for (const mcp of servers) {
        mcp.registerTool(
          name,
          { description: `Echoes as ${name}.`, inputSchema: { text: z.string() } },
          async ({ text }) => ({
            content: [{ type: 'text', text: `${name}: ${text}` }],
          }),
        );
      }
    },
    async close() {
      for (const transport of transports.values()) await transport.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function createShoutServer(): McpServer {
  const server = new McpServer({ name: 'shout', version: '1.0.0' });
  server.registerTool(
    'shout',
    {
      description: 'Upper-cases the text.',
      inputSchema: { text: z.string() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ text }) => ({ content: [{ type: 'text', text: text.toUpperCase() }] }),
  );
  server.registerTool(
    'big',
    { description: 'Answers with that many characters.', inputSchema: { bytes: z.number() } },
    async ({ bytes }) => ({ content: [{ type: 'text', text: 'x'.repeat(bytes) }] }),
  );
  return server;
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

/**
 * A stdio MCP server that ignores the end of its input (it outlives a gateway killed by SIGKILL
 * unless reaped): tools `echo`, `big` (`bytes` characters) and {@link STUBBORN_LONG_TOOL}.
 * `--silent`: it never answers, not even `initialize`.
 */
export const STUBBORN_SERVER = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../fixtures/mcp/stubborn-server.mjs',
);

/** The 70-character tool name of the stubborn server (the APIs take at most 64). */
export const STUBBORN_LONG_TOOL = `look_up_${'a'.repeat(55)}_records`;

/** Waits until each named MCP server of the gateway is `ready` (they connect in the background). */
export async function mcpServersReady(
  gateway: { request(method: string, url: string): Promise<{ body: any }> },
  names: readonly string[],
  timeout = 30_000,
): Promise<void> {
  await expect
    .poll(
      async () => {
        const { body } = await gateway.request('GET', '/api/status');
        const states = (body.mcpServers ?? []) as { name: string; state: string }[];
        return names.filter((name) => states.find((server) => server.name === name)?.state !== 'ready');
      },
      { timeout },
    )
    .toEqual([]);
}
