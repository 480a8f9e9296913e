import {
  App,
  type Logger as BoltLogger,
  type HTTPReceiver,
  type SocketModeReceiver,
  type webApi,
} from '@slack/bolt';
import type { WebClientOptions } from './bolt-app.js';
import type { SlackConfig } from './types.js';

/** What both receivers' apps are built from. */
export interface BoltParts {
  config: SlackConfig;
  clientOptions: WebClientOptions;
  boltLogger: BoltLogger;
  startClient: webApi.WebClient;
}

/** The Bolt app on a receiver: no `ignoreSelf` (`shouldHear` decides), no auth.test before `start`. */
export function newApp(parts: BoltParts, receiver: HTTPReceiver | SocketModeReceiver): App {
  return new App({
    token: parts.config.botToken,
    receiver,
    clientOptions: parts.clientOptions,
    logger: parts.boltLogger,
    // `shouldHear` decides about the bot's own messages, with everything else.
    ignoreSelf: false,
    // No auth.test in the constructor, whose failure would be an unhandled rejection: `start` awaits `init`.
    deferInitialization: true,
  });
}
