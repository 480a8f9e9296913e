import { SocketModeReceiver } from '@slack/bolt';
import { SwitchboardError } from '../../../base/errors/index.js';
import { holdEnvelopeAcks } from './ack.js';
import { type BoltApp, type BoltParts, newApp } from './bolt-app.js';

/** The longest wait in `stop` for the Socket Mode WebSocket to close. */
const CLOSE_WAIT_MS = 5_000;
/** `channels.slack.pongTimeoutMs` when a config built in code leaves it out (the schema's default). */
const DEFAULT_PONG_TIMEOUT_MS = 15_000;

/**
 * Socket Mode: the app connects to Slack over a WebSocket. A dropped connection is reconnected
 * here at once; when that fails, `onLost`'s listener is told and the app waits for `stop` and
 * `start` (the channel supervisor backs off).
 */
export function createSocketBoltApp(parts: BoltParts): BoltApp {
  const { config, boltLogger, clientOptions, startClient } = parts;
  if (config.appToken === undefined)
    throw new SwitchboardError('CHANNEL_MISCONFIGURED', 'channels.slack.appToken is required in socket mode');
  const receiver = new SocketModeReceiver({
    appToken: config.appToken,
    logger: boltLogger,
    installerOptions: { clientOptions },
    // The client's own reconnect gives up for good, with an unhandled rejection, when
    // apps.connections.open cannot be reached (a network error is "unrecoverable" to it). So the
    // reconnect is done here: at once, and when that fails the channel supervisor backs off.
    autoReconnectEnabled: false,
    // `channels.slack.pongTimeoutMs`: pings go out every third of it, and a pong later than it drops
    // the connection (reconnected below).
    clientPingTimeout: config.pongTimeoutMs ?? DEFAULT_PONG_TIMEOUT_MS,
  });
  const app = newApp(parts, receiver);
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
    onEnvelope: (listener) => {
      receiver.client.on('slack_event', ({ body }: { body?: unknown }) => listener(body));
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
      await Promise.race([closed, delay(CLOSE_WAIT_MS)]);
    },
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
