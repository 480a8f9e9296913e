import type { RequestListener } from 'node:http';
import {
  App,
  type Logger as BoltLogger,
  HTTPReceiver,
  LogLevel,
  SocketModeReceiver,
  webApi,
} from '@slack/bolt';
import type { Logger } from '../../logging/index.js';
import { holdEnvelopeAcks } from './ack.js';
import { type SlackConfig, slackApiUrl } from './types.js';

/** Three retries within about 10 s (Slack's 429s are waited out separately, per Retry-After). */
const DEFAULT_RETRY = { retries: 3, factor: 2, minTimeout: 1000, maxTimeout: 5000 };

/** The Web API client options Bolt takes (`@slack/web-api` is Bolt's dependency, not ours). */
export type WebClientOptions = NonNullable<
  NonNullable<ConstructorParameters<typeof App>[0]>['clientOptions']
>;

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
}

/**
 * A Bolt app for `config`: Socket Mode (the default) or Bolt's HTTP receiver, whose request
 * listener the gateway mounts on its own server. Bolt's `ignoreSelf` is off: `shouldHear` decides.
 * Bolt calls `auth.test` while constructing, so the Web API must answer by then.
 */
export function createBoltApp(options: {
  config: SlackConfig;
  logger: Logger;
  webClientOptions: Pick<WebClientOptions, 'retryConfig'> | undefined;
}): BoltApp {
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
  const newApp = (receiver: HTTPReceiver | SocketModeReceiver) =>
    new App({
      token: config.botToken,
      receiver,
      clientOptions,
      logger: boltLogger,
      // `shouldHear` decides about the bot's own messages, with everything else.
      ignoreSelf: false,
      // No auth.test in the constructor, whose failure would be an unhandled rejection: `start` awaits `init`.
      deferInitialization: true,
    });
  if (config.mode === 'http') {
    if (config.signingSecret === undefined)
      throw new Error('channels.slack.signingSecret is required in http mode');
    const receiver = new HTTPReceiver({
      signingSecret: config.signingSecret,
      logger: boltLogger,
      // The 200 waits for the listener, which returns once the message is stored (see ack.ts).
      processBeforeResponse: true,
    });
    const app = newApp(receiver);
    return {
      app,
      startClient,
      // Bound by Bolt; events reach the app once `init` has run.
      requestListener: receiver.requestListener,
      start: () => app.init(),
      stop: async () => {},
      // Slack POSTs to us: there is no connection to lose.
      onLost: () => {},
    };
  }
  if (config.appToken === undefined) throw new Error('channels.slack.appToken is required in socket mode');
  const receiver = new SocketModeReceiver({
    appToken: config.appToken,
    logger: boltLogger,
    installerOptions: { clientOptions },
    // The client's own reconnect gives up for good, with an unhandled rejection, when
    // apps.connections.open cannot be reached (a network error is "unrecoverable" to it). So the
    // reconnect is done here: at once, and when that fails the channel supervisor backs off.
    autoReconnectEnabled: false,
  });
  const app = newApp(receiver);
  holdEnvelopeAcks(app);
  let active = false;
  let reconnecting = false;
  let lost: ((error: unknown) => void) | undefined;
  receiver.client.on('disconnected', () => {
    // Slack rotated the connection (its `disconnect` message), or the connection dropped.
    if (!active || reconnecting) return;
    reconnecting = true;
    receiver.client.start().then(
      () => {
        reconnecting = false;
      },
      (error: unknown) => {
        reconnecting = false;
        if (!active) return;
        active = false;
        lost?.(error);
      },
    );
  });
  return {
    app,
    startClient,
    onLost: (listener) => {
      lost = listener;
    },
    async start() {
      await app.init();
      await app.start();
      active = true;
    },
    async stop() {
      active = false;
      const closed = new Promise<void>((resolve) => receiver.client.once('disconnected', () => resolve()));
      await app.stop();
      // `stop()` returns before the WebSocket has closed; without this wait a 30 s timer keeps Node alive.
      await Promise.race([closed, delay(5_000)]);
    },
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Bolt's logger interface on top of ours; Bolt's info chatter goes to debug. */
function toBoltLogger(logger: Logger): BoltLogger {
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
