import type { ChannelName, DeliveryRoute } from '../sessions/index.js';

/** How a turn ended (the same as the agents' TurnStatus; channels do not import agents). */
type TurnStatus = 'done' | 'error' | 'killed' | 'timeout' | 'interrupted';

export type { ChannelName, DeliveryRoute };

/** A chat message as every adapter normalizes it. The sender id comes from the platform, never from text. */
export interface InboundMessage {
  channel: ChannelName;
  chatType: 'direct' | 'channel';
  /** Platform channel id; for direct chats, the user id. */
  chatId: string;
  threadId?: string;
  /** `webchat:<user>`, `slack:<U…>`, `discord:<snowflake>`. */
  senderId: string;
  text: string;
  /** Platform message id (unique per channel). */
  messageId: string;
  /** Slack team id, when the platform has one. */
  teamId?: string;
  /** Discord guild id, when the platform has one. */
  guildId?: string;
}

/** A complete reply. */
export interface OutboundMessage {
  /** Unique per reply; stream parts carry the same id. */
  id: string;
  text: string;
  /**
   * Not an answer to a request (a restart note): nobody may be connected to read it, so an
   * adapter that can hold messages for an absent reader keeps it until it can deliver it.
   */
  notice?: boolean;
}

/** Part of a reply still being written; adapters without streaming ignore these. */
export interface OutboundDelta {
  id: string;
  delta: string;
}

/** What happened to an inbound message: the session it went to and the replies of its turn. */
export interface DispatchResult {
  sessionKey: string;
  replies: OutboundMessage[];
  /** How the turn that answered ended, and its run (absent for chat commands). */
  status?: TurnStatus;
  runId?: string;
}

/**
 * What an adapter learns before the turn ends. `accepted` is called once the gateway has taken the
 * message for good: stored in the inbox (durable: it is answered even if the process dies now),
 * or, for a chat command, taken to be run. Only then may the platform be told the message arrived
 * (Slack's ack); the returned promise still resolves when the turn ends. `accepted` is never called
 * when dispatch rejects before the message was stored.
 */
export interface DispatchOptions {
  accepted?(): void;
  /**
   * The platform delivers this message again (Slack's retry): the process that got it first may
   * have stored it and died before it could say so, so a message already waiting in the inbox or
   * in its session's recent transcript (same message id) is accepted without being stored again.
   */
  redelivery?: boolean;
}

export type InboundHandler = (message: InboundMessage, options?: DispatchOptions) => Promise<DispatchResult>;

/**
 * A chat transport. Adapters normalize inbound events and send outbound messages;
 * routing, permissions and agent logic never live here.
 */
export interface ChannelAdapter {
  readonly name: ChannelName;
  start(onInbound: InboundHandler): Promise<void>;
  stop(): Promise<void>;
  send(route: DeliveryRoute, message: OutboundMessage): Promise<void>;
  sendDelta?(route: DeliveryRoute, delta: OutboundDelta): void;
  /**
   * Whether an error `start` threw means the platform refused the credentials (a config
   * problem) rather than being unreachable or down.
   */
  tokenRefused?(error: unknown): boolean;
  /**
   * Registers the listener told how the connection fares after a successful `start` (never
   * after `stop`): `down` (dropped; the client library reconnects by itself), `up` (back), or
   * `lost` (dropped for good: whoever started the adapter must stop and start it again).
   */
  watch?(listener: (event: ConnectionEvent, error?: unknown) => void): void;
}

export type ConnectionEvent = 'down' | 'up' | 'lost';
