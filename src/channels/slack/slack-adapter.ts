import type { RequestListener } from 'node:http';
import type { App } from '@slack/bolt';
import type { Logger } from '../../logging/index.js';
import type { InboundHandler } from '../../messages/index.js';
import { createHeldEvents, type HeldEvents } from '../held-events.js';
import { type ChannelMemory, createLocalMemory } from '../memory.js';
import type { ChannelAdapter, InboundFileStore } from '../types.js';
import { type BoltApp, createBoltApp, type WebClientOptions } from './bolt-app.js';
import { isRefusedTokenError } from './check-credentials.js';
import { createSlackGate, type SlackGate } from './gate.js';
import { listenForClicks } from './slack-actions.js';
import { uploadFile } from './slack-attach.js';
import { listenForSlashCommand } from './slack-commands.js';
import { type HeldDelivery, handOnHeldEvents, listenForEvents } from './slack-receive.js';
import { postReply } from './slack-send.js';
import { createSlackStreaming } from './slack-stream.js';
import { createSlackThreadReader, type SlackThreadReader } from './slack-thread.js';
import type { SlackConfig } from './types.js';

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

/** What the adapter's parts share (`slack-receive.ts`, `slack-send.ts`). */
export interface SlackState {
  readonly config: SlackConfig;
  readonly logger: Logger;
  readonly bolt: BoltApp;
  readonly client: App['client'];
  readonly gate: SlackGate;
  /** Reads a thread's earlier messages when the bot is first mentioned there (`slack-thread.ts`). */
  readonly threads: SlackThreadReader;
  /** User id → DM channel id, from inbound DMs and `conversations.open`. */
  readonly directChannels: Map<string, string>;
  onInbound?: InboundHandler | undefined;
  readonly files?: InboundFileStore | undefined;
  /**
   * Events acknowledged before their message was stored (a message whose files still download),
   * kept in `ChannelMemory` until the router has the message (`slack-receive.ts`).
   */
  readonly held: HeldEvents<HeldDelivery>;
  /** Started and not stopped since. */
  connected: boolean;
  botUserId?: string | undefined;
  botId?: string | undefined;
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
  const bolt = createBoltApp({ config, logger, webClientOptions: options.webClientOptions });
  const memory = options.memory ?? createLocalMemory();
  const state: SlackState = {
    config,
    logger,
    bolt,
    client: bolt.app.client,
    gate: createSlackGate({ config, memory, logger }),
    threads: createSlackThreadReader({
      client: bolt.app.client,
      limit: config.threadHistoryLimit,
      memory,
      logger,
      identity: () => ({ botUserId: state.botUserId, botId: state.botId }),
    }),
    directChannels: new Map(),
    connected: false,
    files: options.files,
    held: createHeldEvents({ memory, key: 'held-events', ttlMs: HELD_TTL_MS, limit: HELD_LIMIT, logger }),
  };
  listenForEvents(state);
  listenForClicks(state);
  listenForSlashCommand(state);
  const streaming = config.stream === false ? undefined : createSlackStreaming(state);
  return {
    name: 'slack',
    get botUserId() {
      return state.botUserId;
    },
    eventsListener: eventsListener(state),
    async start(handler) {
      const identity = await bolt.startClient.auth.test();
      state.botUserId = identity.user_id;
      state.botId = identity.bot_id;
      state.onInbound = handler;
      await bolt.start();
      state.connected = true;
      logger.info({ mode: config.mode, botUserId: state.botUserId }, 'slack connected');
      // What the last process acknowledged and did not see stored: a failed read costs only those.
      await handOnHeldEvents(state).catch((error: unknown) =>
        logger.error({ err: error }, 'held slack events could not be read'),
      );
    },
    tokenRefused: isRefusedTokenError,
    watch(listener) {
      bolt.onLost((error) => {
        state.connected = false;
        logger.warn({ err: error }, 'slack connection lost; reconnecting failed');
        listener('lost', error);
      });
    },
    async stop() {
      state.onInbound = undefined;
      state.connected = false;
      // Turns still running end on their own (the gateway interrupts them); their replies may still post.
      await bolt.stop();
    },
    send: (route, message) =>
      streaming === undefined ? postReply(state, route, message) : streaming.send(route, message),
    ...(streaming === undefined ? {} : { sendDelta: streaming.sendDelta, sendStatus: streaming.sendStatus }),
    sendFile: (route, file) => uploadFile(state, route, file),
  };
}

/** Bolt's listener while Slack is connected; before (or between) starts, 503 and Slack tries again. */
function eventsListener(state: SlackState): RequestListener | undefined {
  const listener = state.bolt.requestListener;
  if (listener === undefined) return undefined;
  return (request, response) => {
    if (state.connected) return listener(request, response);
    request.resume();
    response
      .writeHead(503, { 'content-type': 'text/plain', 'retry-after': '10' })
      .end('slack is not connected yet');
  };
}
