import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerConfig } from '../../base/config/index.js';
import { errorText } from '../../base/errors/index.js';
import type { Logger } from '../../base/logging/index.js';
import { retryDelay } from './backoff.js';
import { boundedFetch } from './bounded-fetch.js';
import type { McpCaller, McpCallResult, McpToolInfo } from './mcp-tool.js';

type Sdk = typeof import('./mcp-sdk.js');
let sdkLoading: Promise<Sdk> | undefined;
/** The SDK, imported once, with the first attempt of the first server. */
const loadSdk = () => {
  sdkLoading ??= import('./mcp-sdk.js');
  return sdkLoading;
};

import { answerTooLarge, MAX_ANSWER_BYTES } from './answer-limit.js';
import type { ProcessGroups } from './process-groups.js';

/** One server as `/api/status`, doctor and the log see it; `error` is scrubbed of secrets. */
export interface McpServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  /** `connecting` (first try or a retry), `ready`, `failed` (waiting to retry), `stopped`. */
  state: 'connecting' | 'ready' | 'failed' | 'stopped';
  tools: number;
  /** Failed attempts since the last success. */
  failures: number;
  error?: string;
  /** The stdio server's process id while it runs. */
  pid?: number;
}

export interface McpConnectionOptions {
  name: string;
  config: McpServerConfig;
  configPath: string;
  logger: Logger;
  scrub(text: string): string;
  /** The server's current tools: after each connect and each `list_changed`. */
  onTools(tools: McpToolInfo[]): void;
  /** Where a stdio server's process group is recorded (the gateway's state dir); none for doctor. */
  groups?: ProcessGroups | undefined;
}

export interface McpConnection extends McpCaller {
  /** The first attempt; a failure is reported and retried, never thrown. */
  start(): Promise<void>;
  status(): McpServerStatus;
  stop(): Promise<void>;
}

const STDERR_KEPT = 400;

/** One MCP server: connects, lists its tools, and reconnects with backoff when it fails or dies. */
export function createMcpConnection(options: McpConnectionOptions): McpConnection {
  const { name, config, logger } = options;
  let state: McpServerStatus['state'] = 'connecting';
  let client: Client | undefined;
  let pid: number | undefined;
  let error: string | undefined;
  let failures = 0;
  let toolCount = 0;
  let timer: NodeJS.Timeout | undefined;
  let stderrTail = '';
  /** Why the current transport closed the connection itself (an oversize answer). */
  let closeReason: () => string | undefined = () => undefined;

  function fail(reason: string, current: Client): void {
    if (client !== current || state === 'stopped') return;
    client = undefined;
    pid = undefined;
    failures += 1;
    state = 'failed';
    error = options.scrub(stderrTail ? `${reason} (stderr: ${stderrTail.trim()})` : reason);
    const delayMs = retryDelay(failures);
    logger.warn({ mcpServer: name, reason: error, retryInMs: delayMs }, 'MCP server is down; retrying');
    void current.close().catch(() => undefined);
    timer = setTimeout(() => void attempt(), delayMs);
  }

  async function attempt(): Promise<void> {
    timer = undefined;
    if (state === 'stopped') return;
    state = 'connecting';
    const sdk = await loadSdk();
    // A stop may have come during the import (TypeScript does not see `state` change across it).
    if ((state as McpServerStatus['state']) === 'stopped') return;
    stderrTail = '';
    const current = createClient(sdk, (tools) => {
      if (client !== current) return;
      toolCount = tools.length;
      options.onTools(tools);
    });
    client = current;
    const transport = createTransport(sdk, options, (text) => {
      stderrTail = `${stderrTail}${text}`.slice(-STDERR_KEPT);
    });
    closeReason = () => (transport instanceof sdk.StdioServerTransport ? transport.closeReason : undefined);
    try {
      current.onclose = () =>
        fail(closeReason() ?? 'the connection closed (the server exited or hung up)', current);
      // No await before connect: a stop from here on closes this transport (and its process).
      await current.connect(transport, { timeout: config.timeoutMs });
      pid = transport instanceof sdk.StdioServerTransport ? transport.pid : undefined;
      const tools = await listTools(current, config.timeoutMs);
      if (client !== current) return;
      state = 'ready';
      error = undefined;
      failures = 0;
      toolCount = tools.length;
      options.onTools(tools);
      logger.info({ mcpServer: name, tools: tools.length }, 'MCP server connected');
    } catch (caught) {
      fail(closeReason() ?? errorText(caught), current);
    }
  }

  return {
    start: attempt,
    status: () => serverStatus(name, config, { state, tools: toolCount, failures, error, pid }),
    call: (tool, input, signal) =>
      state === 'ready' && client
        ? callTool(client, { ...options, tool, input, signal, closeReason })
        : Promise.resolve(errorResult(`MCP server "${name}" ${notReady(state, error)}.`)),
    unavailable: () =>
      state === 'ready' && client ? undefined : `needs MCP server "${name}", which ${notReady(state, error)}`,
    async stop() {
      state = 'stopped';
      if (timer) clearTimeout(timer);
      timer = undefined;
      const current = client;
      client = undefined;
      await current?.close().catch(() => undefined);
    },
  };
}

function serverStatus(
  name: string,
  config: McpServerConfig,
  now: {
    state: McpServerStatus['state'];
    tools: number;
    failures: number;
    error?: string;
    pid?: number | undefined;
  },
): McpServerStatus {
  const { state, tools, failures, error, pid } = now;
  return {
    name,
    transport: config.command === undefined ? 'http' : 'stdio',
    state,
    tools,
    failures,
    ...(error === undefined ? {} : { error }),
    ...(pid === undefined ? {} : { pid }),
  };
}

/** Said of a server that is not ready: its state, why, and that it is retried. */
function notReady(state: McpServerStatus['state'], error: string | undefined): string {
  const why = error ? ` (${error})` : '';
  return `is ${state}${why}: its tools are unavailable until it reconnects; the gateway retries it with backoff`;
}

function errorResult(text: string): McpCallResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/**
 * Stdio: the command with its args, env (over PATH, HOME…) and cwd, in a process group of its own
 * (`stdio-transport.ts`); HTTP: the url with its headers.
 */
function createTransport(sdk: Sdk, options: McpConnectionOptions, stderr: (text: string) => void): Transport {
  const { config } = options;
  if (config.command === undefined) {
    return new sdk.StreamableHTTPClientTransport(new URL(config.url ?? ''), {
      requestInit: { headers: config.headers },
      fetch: boundedFetch(MAX_ANSWER_BYTES, answerTooLarge(options.name)),
    });
  }
  const cwd = config.cwd && path.resolve(path.dirname(options.configPath), config.cwd);
  return new sdk.StdioServerTransport({
    server: options.name,
    command: config.command,
    args: config.args,
    env: config.env,
    cwd,
    stderr,
    groups: options.groups,
  });
}

/** Every page of `tools/list`. */
async function listTools(client: Client, timeout: number): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {}, { timeout });
    tools.push(...(page.tools as McpToolInfo[]));
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/** One `tools/call`; a lost connection or a timeout is a tool error naming the server. */
async function callTool(
  client: Client,
  call: McpConnectionOptions & {
    tool: string;
    input: object;
    signal: AbortSignal;
    closeReason(): string | undefined;
  },
): Promise<McpCallResult> {
  try {
    const result = await client.callTool(
      { name: call.tool, arguments: call.input as Record<string, unknown> },
      undefined,
      { signal: call.signal, timeout: call.config.timeoutMs },
    );
    return result as McpCallResult;
  } catch (caught) {
    if (call.signal.aborted) throw caught;
    const oversize = call.closeReason();
    if (oversize) return errorResult(`${oversize}: the answer was dropped and the server is reconnected.`);
    return errorResult(`MCP server "${call.name}" failed the call: ${call.scrub(errorText(caught))}`);
  }
}

/** A client that hands each refreshed tool list (`notifications/tools/list_changed`) to `onTools`. */
function createClient(sdk: Sdk, onTools: (tools: McpToolInfo[]) => void): Client {
  return new sdk.Client(
    { name: 'switchboard', version: '1' },
    {
      listChanged: {
        tools: {
          onChanged: (listError, tools) => {
            if (!listError && tools) onTools(tools as McpToolInfo[]);
          },
        },
      },
    },
  );
}
