import type { RequestListener } from 'node:http';
import type { App } from '@slack/bolt';
import { SwitchboardError } from '../../../base/errors/index.js';
import type { Logger } from '../../../base/logging/index.js';
import type { InboundHandler } from '../../../base/messages/index.js';
import { createDirectChannels } from '../direct-channels.js';
import { createHeldEvents } from '../held-events.js';
import { type ChannelMemory, createLocalMemory } from '../memory.js';
import { createChannelNames, type NameLookup } from '../names.js';
import type { ChannelAdapter, ConnectionEvent, InboundFileStore } from '../types.js';
import { boltParts, type WebClientOptions } from './bolt-app.js';
import { createHttpBoltApp } from './bolt-http.js';
import { createSocketBoltApp } from './bolt-socket.js';
import { isRefusedTokenError } from './check-credentials.js';
import { createSlackGate } from './gate.js';
import { listenForClicks } from './slack-actions.js';
import { listenForSlashCommand } from './slack-commands.js';
import { withSlackFiles } from './slack-files.js';
import { createSlackLiveness } from './slack-liveness.js';
import { SlackEvents } from './slack-receive.js';
import { createSlackSender } from './slack-send.js';
import { createSlackStreaming } from './slack-stream.js';
import { createSlackThreadReader } from './slack-thread.js';
import type { SlackConfig, SlackIdentity } from './types.js';

export { SLACK_TEXT_LIMIT } from './slack-send.js';

/** A held event waits this long for the next start at most (Slack gave up on it long before). */
const HELD_TTL_MS = 24 * 60 * 60 * 1000;
/** Events acknowledged while their files download, at most; past it an event is not acknowledged. */
const HELD_LIMIT = 200;

export interface SlackAdapterOptions {
  config: SlackConfig;
  logger: Logger;
  /** Web API client tuning, e.g. `retryConfig` (tests turn retries off). */
  webClientOptions?: Pick<WebClientOptions, 'retryConfig'>;
  /**
   * Where the threads the bot takes part in and the events it answered are kept, so a restart
   * forgets neither; without it they are kept in this process only.
   */
  memory?: ChannelMemory;
  /** Where files posted with a message are saved; without it they are ignored. */
  files?: InboundFileStore;
}

export interface SlackAdapter extends ChannelAdapter {
  /** The bot's user id from `auth.test`, known after `start`. */
  readonly botUserId: string | undefined;
  /**
   * HTTP mode: the listener for Slack's event POSTs (path `/slack/events`), which checks their
   * signatures; whoever serves HTTP mounts it. Until Slack is connected it answers 503, so
   * Slack delivers the event again later. Undefined in Socket Mode.
   */
  readonly eventsListener: RequestListener | undefined;
}

/**
 * Slack through @slack/bolt: Socket Mode by default, Bolt's HTTP receiver with `mode: 'http'`
 * (mounted by the gateway's HTTP server at `/slack/events`).
 * Hears `message` and `app_mention` events as `shouldHear` allows, once per event id and per
 * message. Slack is told an event arrived only once `onInbound` has stored its message (see
 * `slack-receive.ts`); an `eyes` reaction marks the message while its turn runs. A channel
 * message's session is its thread (a top-level message opens one), so replies go to the route's
 * thread; a route without one (a named route) posts in the channel itself. With `stream` (the
 * default) a reply shows as it is written: a placeholder updated as it streams (`slack-stream.ts`).
 */
export function createSlackAdapter(options: SlackAdapterOptions): SlackAdapter {
  const { config, logger } = options;
  const parts = boltParts({ config, logger, webClientOptions: options.webClientOptions });
  const bolt = config.mode === 'http' ? createHttpBoltApp(parts) : createSocketBoltApp(parts);
  const { app } = bolt;
  const { client } = app;
  const memory = options.memory ?? createLocalMemory();
  /** The router's dispatch, from `start` until `stop`. */
  let onInbound: InboundHandler | undefined;
  let identity: SlackIdentity = { botUserId: undefined, botId: undefined };
  /** Started and not stopped since. */
  let connected = false;
  /** Told how the connection fares once started (the channel supervisor). */
  let watcher: ((event: ConnectionEvent, error?: unknown) => void) | undefined;
  const handler = () => onInbound;
  const gate = createSlackGate({ config, memory, logger });
  const joinThread = (chatId: string, threadTs: string) => gate.joinThread(chatId, threadTs);
  const directChannels = createDirectChannels(async (user) => {
    const id = (await client.conversations.open({ users: user })).channel?.id;
    if (id === undefined)
      throw new SwitchboardError(
        'CHANNEL_UNEXPECTED_ANSWER',
        `conversations.open gave no channel for ${user}`,
      );
    return id;
  });
  const sender = createSlackSender({ client, config, logger, directChannels, joinThread });
  const threads = createSlackThreadReader({
    client,
    limit: config.threadHistoryLimit,
    memory,
    logger,
    identity: () => identity,
  });
  const events = new SlackEvents({
    app,
    client,
    logger,
    names: createChannelNames({ memory, logger, lookup: slackNameLookup(client) }),
    gate,
    threads,
    held: createHeldEvents({ memory, key: 'held-events', ttlMs: HELD_TTL_MS, limit: HELD_LIMIT, logger }),
    directChannels,
    takesFiles: options.files !== undefined,
    withFiles: (raw, message) => withSlackFiles(raw, message, { store: options.files, config, logger }),
    handler,
    identity: () => identity,
  });
  listenForClicks({ app, client, config, logger, directChannels, handler });
  listenForSlashCommand({
    app,
    client,
    config,
    logger,
    directChannels,
    sender,
    handler,
    identity: () => identity,
  });
  // Socket Mode only: in HTTP mode Slack POSTs to us, there is no connection to go deaf.
  const liveness =
    bolt.onEnvelope === undefined
      ? undefined
      : createSlackLiveness({
          client,
          memory,
          settings: config.liveness,
          identity: () => identity,
          logger,
          // The supervisor logs it, shows it and starts the adapter again.
          deaf: (reason) => watcher?.('deaf', new SwitchboardError('CHANNEL_DEAF', reason)),
        });
  if (liveness !== undefined) bolt.onEnvelope?.((body) => liveness.envelope(body));
  const streaming =
    config.stream === false
      ? undefined
      : createSlackStreaming({ config, logger, directChannels, sender, joinThread });
  return {
    name: 'slack',
    get botUserId() {
      return identity.botUserId;
    },
    eventsListener: whileConnected(bolt.requestListener, () => connected),
    async start(next) {
      const found = await bolt.startClient.auth.test();
      identity = { botUserId: found.user_id, botId: found.bot_id };
      onInbound = next;
      await bolt.start();
      connected = true;
      liveness?.start();
      logger.info({ mode: config.mode, botUserId: identity.botUserId }, 'slack connected');
      // What the last process acknowledged and did not see stored: a failed read costs only those.
      await events
        .handOnHeldEvents()
        .catch((error: unknown) => logger.error({ err: error }, 'held slack events could not be read'));
    },
    tokenRefused: isRefusedTokenError,
    watch(listener) {
      watcher = listener;
      bolt.onLost((error) => {
        connected = false;
        logger.warn({ err: error }, 'slack connection lost; reconnecting failed');
        listener('lost', error);
      });
    },
    async stop() {
      onInbound = undefined;
      connected = false;
      liveness?.stop();
      // Turns still running end on their own (the gateway interrupts them); their replies may still post.
      await bolt.stop();
    },
    send: (route, message) =>
      streaming === undefined ? sender.post(route, message) : streaming.send(route, message),
    ...(streaming === undefined ? {} : { sendDelta: streaming.sendDelta, sendStatus: streaming.sendStatus }),
    sendFile: (route, file) => sender.upload(route, file),
  };
}

/** Bolt's listener while Slack is connected; before (or between) starts, 503 and Slack tries again. */
function whileConnected(
  listener: RequestListener | undefined,
  connected: () => boolean,
): RequestListener | undefined {
  if (listener === undefined) return undefined;
  return (request, response) => {
    if (connected()) return listener(request, response);
    request.resume();
    response
      .writeHead(503, { 'content-type': 'text/plain', 'retry-after': '10' })
      .end('slack is not connected yet');
  };
}

/**
 * A sender's display name (`users.info`, `users:read`) and a channel's `#name` (`conversations.info`,
 * `channels:read`), for the control UI: looked up in the background (`names.ts`).
 */
function slackNameLookup(client: App['client']): NameLookup {
  return {
    async user(id) {
      const { user } = await client.users.info({ user: id });
      return user?.profile?.display_name || user?.profile?.real_name || user?.real_name || user?.name;
    },
    async chat(id) {
      const { channel } = await client.conversations.info({ channel: id });
      return channel?.name ? `#${channel.name}` : undefined;
    },
  };
}
