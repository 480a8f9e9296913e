import type { RequestListener } from 'node:http';
import {
  App,
  type Logger as BoltLogger,
  type HTTPReceiver,
  LogLevel,
  type SocketModeReceiver,
  webApi,
} from '@slack/bolt';
import type { Logger } from '../../../base/logging/index.js';
import { type SlackConfig, slackApiUrl } from './types.js';

/** Three retries within about 10 s (Slack's 429s are waited out separately, per Retry-After). */
const DEFAULT_RETRY = { retries: 3, factor: 2, minTimeout: 1000, maxTimeout: 5000 };

/** The Web API client options Bolt takes (`@slack/web-api` is Bolt's dependency, not ours). */
export type WebClientOptions = NonNullable<
  NonNullable<ConstructorParameters<typeof App>[0]>['clientOptions']
>;

/**
 * The Bolt app on one of its two receivers, a strategy: Socket Mode (`bolt-socket.ts`, the default)
 * or Bolt's HTTP receiver (`bolt-http.ts`), whose request listener the gateway mounts on its own
 * server. Both are built from the same `BoltParts`.
 */
export interface BoltApp {
  app: App;
  /**
   * The Web API client for the start's `auth.test`, without retries: a start that fails is
   * retried by the channel supervisor with its own backoff, so retries here would only stack.
   */
  startClient: webApi.WebClient;
  /**
   * HTTP mode: handles Slack's POSTs to `/slack/events` (signature and timestamp checked, then the
   * event dispatched). It listens nowhere itself: the gateway's HTTP server hands requests to it.
   */
  requestListener?: RequestListener;
  /** Starts receiving (Socket Mode: connects). */
  start(): Promise<void>;
  /** Stops receiving and resolves once the Socket Mode WebSocket is closed (its timers with it). */
  stop(): Promise<void>;
  /**
   * Socket Mode: `listener` is called when the connection dropped (after `start`, before `stop`)
   * and connecting again at once failed; the app then waits for `stop` and `start`.
   */
  onLost(listener: (error: unknown) => void): void;
  /**
   * Socket Mode: `listener` gets the body of every envelope that arrives (events, clicks,
   * commands), before any listener runs: the connection's signs of life. HTTP mode has none.
   */
  onEnvelope?(listener: (body: unknown) => void): void;
}

/** What both receivers' apps are built from. */
export interface BoltParts {
  config: SlackConfig;
  clientOptions: WebClientOptions;
  boltLogger: BoltLogger;
  startClient: webApi.WebClient;
}

/** The parts of a Bolt app for `config`. */
export function boltParts(options: {
  config: SlackConfig;
  logger: Logger;
  webClientOptions: Pick<WebClientOptions, 'retryConfig'> | undefined;
}): BoltParts {
  const { config, logger } = options;
  const clientOptions: WebClientOptions = {
    // The Web API client's default retries for about 30 minutes: a start (auth.test) against an
    // unreachable Slack would hold the whole gateway that long. A few quick retries instead; the
    // gateway then runs without Slack and says so.
    retryConfig: DEFAULT_RETRY,
    ...options.webClientOptions,
    slackApiUrl: slackApiUrl(config),
  };
  const boltLogger = toBoltLogger(logger);
  const startClient = new webApi.WebClient(config.botToken, {
    ...clientOptions,
    logger: boltLogger,
    retryConfig: { retries: 0 },
  });
  return { config, clientOptions, boltLogger, startClient };
}

/**
 * The Bolt app on a receiver: Bolt's `ignoreSelf` is off (`shouldHear` decides about the bot's own
 * messages, with everything else), and no auth.test in the constructor, whose failure would be an
 * unhandled rejection: `start` awaits `init`.
 */
export function newApp(parts: BoltParts, receiver: HTTPReceiver | SocketModeReceiver): App {
  return new App({
    token: parts.config.botToken,
    receiver,
    clientOptions: parts.clientOptions,
    logger: parts.boltLogger,
    ignoreSelf: false,
    deferInitialization: true,
  });
}

/** Bolt's logger interface on top of ours; Bolt's info chatter goes to debug. */
export function toBoltLogger(logger: Logger): BoltLogger {
  const text = (parts: unknown[]) =>
    parts.map((part) => (typeof part === 'string' ? part : String(part))).join(' ');
  let level = LogLevel.INFO;
  return {
    debug: (...parts) => logger.debug(text(parts)),
    info: (...parts) => logger.debug(text(parts)),
    warn: (...parts) => logger.warn(text(parts)),
    error: (...parts) => logger.error(text(parts)),
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => {},
  };
}
