import { HTTPReceiver } from '@slack/bolt';
import { SwitchboardError } from '../../../base/errors/index.js';
import { type BoltApp, type BoltParts, newApp } from './bolt-app.js';

/** HTTP mode: Slack POSTs to the gateway's server, which hands the requests to Bolt's listener. */
export function createHttpBoltApp(parts: BoltParts): BoltApp {
  const { config, boltLogger, startClient } = parts;
  if (config.signingSecret === undefined)
    throw new SwitchboardError(
      'CHANNEL_MISCONFIGURED',
      'channels.slack.signingSecret is required in http mode',
    );
  const receiver = new HTTPReceiver({
    signingSecret: config.signingSecret,
    logger: boltLogger,
    // The 200 waits for the listener, which returns once the message is stored (see ack.ts).
    processBeforeResponse: true,
  });
  const app = newApp(parts, receiver);
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
