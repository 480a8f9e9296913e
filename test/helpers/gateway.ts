import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { GatewayExtensions } from '../../src/app/index.js';
import { ENV_FILE_VARIABLE, readEnvironment } from '../../src/base/config/index.js';
import { createLogger, type LoggerHandle } from '../../src/base/logging/index.js';
import { createGatewayHost, type GatewayHost } from '../../src/host/index.js';
import { makeTempDir, removeDir } from './machine.js';

export interface TestGateway {
  host: GatewayHost;
  /** Base URL, e.g. http://127.0.0.1:41234 (changes after a restart: port 0 picks a new one). */
  url: string;
  token: string;
  dir: string;
  configPath: string;
  /** JSON log lines written so far. */
  logLines: string[];
  /** Authenticated JSON request against the gateway: with its token, or a user's (`httpWithUsers`). */
  request(
    method: string,
    route: string,
    body?: unknown,
    token?: string,
  ): Promise<{ status: number; body: any }>;
  /** Sends a web chat message as `user` (default `local`). */
  send(text: string, user?: string, thread?: string): Promise<{ status: number; body: any }>;
  restart(): Promise<void>;
  stop(): Promise<void>;
  /** Stops the gateway and deletes its directory. */
  dispose(): Promise<void>;
}

export interface TestGatewayOptions extends GatewayExtensions {
  /** Extra config merged over the test defaults (port 0, a temp state dir, a fixed token); `http` replaces them. */
  config?: Record<string, unknown>;
  /** Reuse a directory (to restart on the same state). */
  dir?: string;
  /** The environment `${ENV_NAME}` in the config reads (default: none). */
  environment?: Record<string, string>;
  /**
   * An env file (relative to the gateway's directory) read over `environment` at each start and
   * restart, as `switchboard start` reads `data/.env`; it may be absent.
   */
  envFile?: string;
  /** The host's `onDown`: nothing serves and the process would exit non-zero. */
  onDown?: (error: unknown) => void;
}

export const TEST_TOKEN = 'test-token-0123456789abcdef';

/**
 * The `http` config of a gateway where each person signs in with their own token
 * (`http.users.<name>.token`); the gateway's own token stays the operator's. Pass a user's token
 * to `TestGateway.request` to act as them.
 */
export function httpWithUsers(tokens: Readonly<Record<string, string>>) {
  return {
    port: 0,
    token: 'gateway-token-0123456789abcdef',
    users: Object.fromEntries(Object.entries(tokens).map(([name, token]) => [name, { token }])),
  };
}

/** Starts a real gateway in this process on a free port, with its state in a temp dir. */
export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const { config: configOverrides, dir: reusedDir, environment, envFile, onDown, ...extensions } = options;
  const dir = reusedDir ?? (await makeTempDir('switchboard-test-'));
  const configPath = path.join(dir, 'gateway.jsonc');
  const config = {
    stateDir: path.join(dir, 'data'),
    http: { port: 0, token: TEST_TOKEN },
    ...configOverrides,
  };
  await writeFile(configPath, `// test config\n${JSON.stringify(config, null, 2)}\n`);
  const logLines: string[] = [];
  const log: LoggerHandle = createLogger({
    level: 'info',
    destination: { write: (line: string) => void logLines.push(line) },
    // Tests read the collected lines: with `log.file` they get them as a terminal would.
    terminal: true,
  });
  let url = '';
  const host = createGatewayHost({
    log,
    configOptions: { configPath, environment: environment ?? {} },
    ...(envFile === undefined
      ? {}
      : {
          environment: () =>
            readEnvironment({
              environment: { ...environment, [ENV_FILE_VARIABLE]: path.resolve(dir, envFile) },
            }),
        }),
    extensions,
    onReady: (info) => {
      url = info.url;
    },
    ...(onDown ? { onDown } : {}),
  });
  await host.start();
  const gateway: TestGateway = {
    host,
    get url() {
      return url;
    },
    token:
      (config.http as { token?: string }).token ??
      (await readFile(path.join(dir, 'data/http-token'), 'utf8')).trim(),
    dir,
    configPath,
    logLines,
    async request(method, route, body, token = gateway.token) {
      const response = await fetch(`${url}${route}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          // No keep-alive: tests count handles, and a pooled socket to an old server would be noise.
          connection: 'close',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {}
      return { status: response.status, body: parsed };
    },
    send(text, user, thread) {
      return gateway.request('POST', '/api/webchat/messages', {
        text,
        ...(user ? { user } : {}),
        ...(thread ? { thread } : {}),
      });
    },
    restart: () => host.restart('test'),
    async stop() {
      await host.stop();
      log.close();
    },
    async dispose() {
      await host.stop();
      log.close();
      await removeDir(dir);
    },
  };
  return gateway;
}
