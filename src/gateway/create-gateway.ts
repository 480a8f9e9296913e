import path from 'node:path';
import { createNoModelRunner, type TurnRunner } from '../agents/index.js';
import { type ChannelAdapter, createWebchatAdapter, type DeliveryRoute } from '../channels/index.js';
import { collectSecretValues, DEFAULT_CONFIG_PATH, type LoadedConfig } from '../config/index.js';
import { createHttpServer, type HttpServer, type SessionsView } from '../http/index.js';
import type { LoggerHandle } from '../logging/index.js';
import { createRouter, type Router } from '../routing/index.js';
import { createSessionStore, type SessionStore } from '../sessions/index.js';
import { createStore, type Store } from '../store/index.js';
import { resolveHttpToken } from './http-token.js';

export interface GatewayOptions {
  loaded: LoadedConfig;
  log: LoggerHandle;
  /** When the process started (uptime survives restarts). */
  startedAt: number;
  /** Replaces the turn runner; tests use it to script slow or failing turns. */
  createRunner?: (context: { configPath: string }) => TurnRunner;
}

export interface Gateway {
  /**
   * Builds and starts every service. The web chat URL carries the token only on the start that
   * generated it (shown once); otherwise it says where the token is.
   */
  start(): Promise<{ url: string; webchatUrl: string | undefined }>;
  /** Stops taking messages, lets turns end (up to `lifecycle.stopTimeoutMs`), closes everything. */
  stop(): Promise<void>;
}

/** The composition root: the only place where services are constructed and wired together. */
export function createGateway(options: GatewayOptions): Gateway {
  const { loaded } = options;
  const { config } = loaded;
  const logger = options.log.logger;
  const stateDir = path.resolve(config.stateDir);
  let store: Store | undefined;
  let router: Router | undefined;
  let http: HttpServer | undefined;
  const adapters: ChannelAdapter[] = [];

  async function start() {
    try {
      return await startServices();
    } catch (error) {
      await stop().catch((stopError: unknown) =>
        logger.error({ err: stopError }, 'cleanup after a failed start failed'),
      );
      throw error;
    }
  }

  async function startServices() {
    const token = await resolveHttpToken(config.http.token, stateDir);
    const secrets = [...new Set([...collectSecretValues(config), token.token])];
    // A new token is shown once, in the ready line, so the web chat can be opened; after that it is a secret like the others.
    const showToken = token.source === 'generated';
    options.log.setSecrets(showToken ? secrets.filter((secret) => secret !== token.token) : secrets);
    if (showToken) logger.info({ file: token.file }, 'generated a new HTTP token');

    store = await createStore({ url: config.store.url, stateDir, logger });
    const sessions = createSessionStore({ store });
    const webchat = config.channels.webchat.enabled
      ? createWebchatAdapter({ logger: logger.child({ channel: 'webchat' }) })
      : undefined;
    if (webchat) adapters.push(webchat);
    const adapterFor = (route: DeliveryRoute) => adapters.find((adapter) => adapter.name === route.channel);
    const configPath = loaded.path ?? DEFAULT_CONFIG_PATH;

    router = createRouter({
      config,
      configFile: { path: loaded.path, hash: loaded.hash },
      sessions,
      runner: options.createRunner?.({ configPath }) ?? createNoModelRunner({ configPath }),
      logger,
      startedAt: options.startedAt,
      secrets,
      async deliver(route, message) {
        const adapter = adapterFor(route);
        if (!adapter) throw new Error(`no channel adapter for ${route.channel}`);
        await adapter.send(route, message);
      },
      deliverDelta(route, id, delta) {
        adapterFor(route)?.sendDelta?.(route, { id, delta });
      },
    });
    const dispatch = router.dispatch;
    for (const adapter of adapters) await adapter.start(dispatch);

    http = await createHttpServer({
      host: config.http.host,
      port: config.http.port,
      token: token.token,
      logger: logger.child({ component: 'http' }),
      sessions: createSessionsView(sessions, router),
      webchat,
    });
    const url = await http.listen();
    logger.info(
      { store: store.location, config: loaded.path ?? 'built-in defaults', hash: loaded.hash.slice(0, 12) },
      'gateway started',
    );
    const signIn = showToken
      ? `/?token=${encodeURIComponent(token.token)}`
      : ` (sign in with /?token=<token from ${token.source === 'config' ? 'http.token' : token.file}>)`;
    return { url, webchatUrl: webchat ? `${url}${signIn}` : undefined };
  }

  async function stop() {
    // Order matters: refuse new messages, let turns end, then close transports and storage.
    await router?.close(config.lifecycle.stopTimeoutMs);
    for (const adapter of adapters.splice(0).reverse()) {
      await adapter
        .stop()
        .catch((error: unknown) => logger.warn({ err: error, channel: adapter.name }, 'channel stop failed'));
    }
    await http?.close();
    await store?.close();
    router = undefined;
    http = undefined;
    store = undefined;
  }

  return { start, stop };
}

function createSessionsView(sessions: SessionStore, router: Router): SessionsView {
  return {
    async list() {
      const records = await sessions.list();
      return records.map((record) => ({
        key: record.key,
        agentId: record.agentId,
        sessionId: record.sessionId,
        channel: record.route.channel,
        createdAt: record.createdAt,
        lastActivityAt: record.lastActivityAt,
        transcriptLength: record.transcriptLength,
        status: router.sessionStatus(record.key),
      }));
    },
    async transcript(key) {
      const record = await sessions.get(key);
      if (!record) return undefined;
      return { key, sessionId: record.sessionId, entries: await sessions.transcript(key) };
    },
  };
}
