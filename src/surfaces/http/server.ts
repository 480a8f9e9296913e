import type { RequestListener } from 'node:http';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  LogController,
} from 'fastify';
import type { Logger } from '../../base/logging/index.js';
import { createAuthHook, createIdentify } from './auth.js';
import { loadControlUi, registerControlUi } from './control-ui.js';
import { handleHttpError } from './errors.js';
import { createFailureLimit } from './failure-limit.js';
import { type AccessPolicy, createOwnerGate } from './identity.js';
import { fastifyValidatorFactory, lazyValidators } from './lazy-validators.js';
import { createRequestGuard } from './request-guard.js';
import {
  type ChannelStates,
  type ComponentProblems,
  type RunningVersion,
  registerHealthRoutes,
  type SafeModeView,
  type StoreProbe,
} from './routes/health.js';
import { type MetricsPort, registerMetricsRoute } from './routes/metrics.js';
import { registerSignInRoutes } from './routes/sign-in.js';
import { registerSlackEventsRoute } from './routes/slack-events.js';
import { MAX_MESSAGE_LENGTH, registerWebchatRoutes, type WebchatPort } from './routes/webchat.js';
import { MAX_PARAM_LENGTH } from './session-key-limit.js';

export interface HttpServerOptions {
  host: string;
  port: number;
  /** `http.trustProxy`: X-Forwarded-* (protocol, address) believed, from a TLS proxy in front. */
  trustProxy?: boolean | undefined;
  token: string;
  /** `http.users`: user name → token; each signs in as `webchat:<name>` (the gateway token as `local`). */
  users?: Readonly<Record<string, string>> | undefined;
  logger: Logger;
  /** Who is an owner or an approver (from `owners` and `approvals.approvers`); default: `webchat:local` only, the schema's default owners. */
  access?: AccessPolicy | undefined;
  /** The control plane's routes (`src/surfaces/control`), registered after sign-in. */
  routes?: ((app: FastifyInstance, context: RouteContext) => void) | undefined;
  /** The web chat, when enabled. */
  webchat?: WebchatPort | undefined;
  /** Slack in HTTP mode: the listener for `POST /slack/events` (it checks Slack's signatures). */
  slackEvents?: RequestListener | undefined;
  /** Each chat channel's state, for `/healthz` and `/readyz`. */
  channels?: ChannelStates | undefined;
  /** The store's bounded probe, for `/readyz`; absent, the store counts as answering. */
  storeProbe?: StoreProbe | undefined;
  /** Other components that are not ready (MCP servers), for `/readyz`. */
  components?: ComponentProblems | undefined;
  /** Safe mode's cause while the gateway runs in it, for `/healthz` and `/readyz`. */
  safeMode?: (() => SafeModeView | undefined) | undefined;
  /** The version (commit) this gateway runs, for `/readyz`. */
  runningVersion?: (() => RunningVersion | undefined) | undefined;
  /** `GET /metrics` (Prometheus text), behind the token unless `public`; absent, not served. */
  metrics?: { port: MetricsPort; public: boolean } | undefined;
}

/** What the server hands the routes registered from outside (`HttpServerOptions.routes`). */
export interface RouteContext {
  access: AccessPolicy;
  /** The web chat, when enabled. */
  webchat: WebchatPort | undefined;
  /** The most characters one chat message may hold. */
  maxMessageLength: number;
}

/** A route the server answers: `public` needs no token, `page` is a control UI page (served signed out). */
export interface ServedRoute {
  method: string;
  /** The pattern, as the owner gate names it (`/api/sessions/:key/transcript`). */
  url: string;
  public: boolean;
  page: boolean;
}

export interface HttpServer {
  readonly app: FastifyInstance;
  /** Every route registered (HEAD left out), in order: what a test walks to check each one's access. */
  readonly routes: readonly ServedRoute[];
  /** Listens; resolves with the base URL (`http://127.0.0.1:8787`). */
  listen(): Promise<string>;
  close(): Promise<void>;
}

const DEFAULT_ACCESS: AccessPolicy = {
  isOwner: (senderId) => senderId === 'webchat:local',
  isApprover: (senderId) => senderId === 'webchat:local',
};

export async function createHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    // Requests are not logged one by one; errors are. The token never reaches a log line.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 1024 * 1024,
    trustProxy: options.trustProxy ?? false,
    // Session keys reach `/api/sessions/:key/…` whole; the default (100) answered long ones 414.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
    // Each route's schemas compiled by its first request, not all of them at start (fastify's own ajv set-up).
    schemaController: {
      compilersFactory: { buildValidator: lazyValidators(fastifyValidatorFactory()) as never },
    },
  });
  const routes = collectRoutes(app);
  app.setErrorHandler(handleHttpError);
  app.addHook('onRequest', createRequestGuard(options.host));
  const identify = createIdentify({ token: options.token, users: options.users });
  // One count of wrong tokens per source for the sign-in and the token check (each class its own).
  const failures = createFailureLimit();
  app.addHook('onRequest', createAuthHook(identify, failures));
  app.addHook('onRequest', createOwnerGate(options.access ?? DEFAULT_ACCESS));
  app.addHook('onSend', async (_request, reply) => {
    setSecurityHeaders(reply);
  });
  registerHealthRoutes(app, {
    channels: options.channels,
    store: options.storeProbe,
    components: options.components,
    safeMode: options.safeMode,
    version: options.runningVersion,
  });
  if (options.metrics)
    registerMetricsRoute(app, { metrics: options.metrics.port, public: options.metrics.public });
  registerControlUi(app, await loadControlUi());
  registerSignInRoutes(app, identify, failures);
  const access = options.access ?? DEFAULT_ACCESS;
  options.routes?.(app, { access, webchat: options.webchat, maxMessageLength: MAX_MESSAGE_LENGTH });
  if (options.webchat) registerWebchatRoutes(app, { webchat: options.webchat });
  if (options.slackEvents) registerSlackEventsRoute(app, options.slackEvents);
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send({ error: 'not_found', message: `no route ${request.method} ${request.url.split('?')[0]}` }),
  );

  return {
    app,
    routes,
    async listen() {
      await app.listen({ host: options.host, port: options.port });
      const address = app.server.address();
      const port = typeof address === 'object' && address ? address.port : options.port;
      const host = options.host.includes(':') ? `[${options.host}]` : options.host;
      return `http://${host}:${port}`;
    },
    close: () => app.close(),
  };
}

/** Every route registered on `app` from now on (HEAD left out), as the owner gate names them. */
function collectRoutes(app: FastifyInstance): ServedRoute[] {
  const routes: ServedRoute[] = [];
  app.addHook('onRoute', (route) => {
    const config = route.config as { public?: boolean; signInPage?: boolean } | undefined;
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD')
        routes.push({
          method,
          url: route.url,
          public: config?.public === true,
          page: config?.signInPage === true,
        });
    }
  });
  return routes;
}

/**
 * On every answer (pages set their own fuller CSP): no Referer leaves a page (its address may
 * have held `?token=`), no page may frame ours (clickjacking), no content type is sniffed.
 */
function setSecurityHeaders(reply: FastifyReply): void {
  reply.header('referrer-policy', 'no-referrer');
  reply.header('x-frame-options', 'DENY');
  reply.header('x-content-type-options', 'nosniff');
  if (!reply.hasHeader('content-security-policy')) {
    reply.header(
      'content-security-policy',
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    );
  }
}
