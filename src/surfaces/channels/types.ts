import type {
  ChannelName,
  DeliveryRoute,
  InboundHandler,
  InboundMessage,
  OutboundDelta,
  OutboundFile,
  OutboundMessage,
} from '../../base/messages/index.js';

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
  /** Uploads a file to the route's chat (in its thread), where the platform takes files. */
  sendFile?(route: DeliveryRoute, file: OutboundFile): Promise<void>;
  /**
   * Shows a short status line on `route` while a turn runs a tool ("running schedule.once…"); the
   * route's next reply replaces it. Adapters without streaming leave it out.
   */
  sendStatus?(route: DeliveryRoute, text: string): void;
  /**
   * Whether an error `start` threw means the platform refused the credentials (a config
   * problem) rather than being unreachable or down.
   */
  tokenRefused?(error: unknown): boolean;
  /**
   * Registers the listener told how the connection fares after a successful `start` (never
   * after `stop`): `down` (dropped; the client library reconnects by itself), `up` (back), or
   * `lost` (dropped for good: whoever started the adapter must stop and start it again), or
   * `deaf` (open and hearing nothing while the platform shows messages, `../liveness.ts`: the
   * error says why; whoever started the adapter stops and starts it again).
   */
  watch?(listener: (event: ConnectionEvent, error?: unknown) => void): void;
}

export type ConnectionEvent = 'down' | 'up' | 'lost' | 'deaf';

/**
 * Where an adapter saves the files posted with a message (the gateway's: the workspace of the
 * agent the message goes to). `save` returns the path the agent finds the file at.
 */
export interface InboundFileStore {
  save(message: InboundMessage, file: { name: string; type: string; bytes: Uint8Array }): Promise<string>;
  /** The largest file saved, in bytes; larger ones are named to the model, not downloaded. */
  maxBytes: number;
}
