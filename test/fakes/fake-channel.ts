import type {
  ChannelName,
  DeliveryRoute,
  DispatchOptions,
  DispatchResult,
  InboundHandler,
  InboundMessage,
  OutboundDelta,
  OutboundMessage,
} from '../../src/base/messages/index.js';
import type { ChannelAdapter, ConnectionEvent } from '../../src/surfaces/channels/index.js';

/** The error a fake start fails with; `refused` makes `tokenRefused` say yes. */
export class FakeStartError extends Error {
  constructor(readonly refused: boolean) {
    super(refused ? 'invalid_auth (fake)' : 'ECONNREFUSED (fake)');
    this.name = 'FakeStartError';
  }
}

/** How one call of `start` goes: connects, fails (down or refused), or waits to be let go. */
export type FakeStart = 'ok' | 'down' | 'refused' | 'held';

export interface FakeChannel extends ChannelAdapter {
  /** Every call, in order: `start`, `stop`. */
  readonly calls: ('start' | 'stop')[];
  readonly sent: { route: DeliveryRoute; message: OutboundMessage }[];
  readonly deltas: { route: DeliveryRoute; delta: OutboundDelta }[];
  /** Started and not stopped since. */
  readonly running: boolean;
  /** How the next starts go, in order; once used up, starts connect. */
  planStarts(...starts: FakeStart[]): void;
  /** Lets a `held` start go on: connecting, or failing with `outcome`. */
  release(outcome?: 'ok' | 'down'): void;
  /** A message from the platform: handed to the handler `start` got, as an adapter does. */
  receive(
    message: Partial<InboundMessage> & { text: string },
    options?: DispatchOptions,
  ): Promise<DispatchResult>;
  /** What the client library says of the connection (what `watch`'s listener hears). */
  connection(event: ConnectionEvent, error?: unknown): void;
}

/**
 * An in-process `ChannelAdapter` for the supervisor and everything that dispatches through
 * adapters: no platform, no timers. Starts go as planned (`planStarts`), sends are recorded,
 * and the test plays the platform with `receive` and `connection`.
 */
export function createFakeChannel(name: ChannelName = 'slack'): FakeChannel {
  const calls: ('start' | 'stop')[] = [];
  const sent: FakeChannel['sent'] = [];
  const deltas: FakeChannel['deltas'] = [];
  const plan: FakeStart[] = [];
  let handler: InboundHandler | undefined;
  let watcher: ((event: ConnectionEvent, error?: unknown) => void) | undefined;
  let held: ((outcome: 'ok' | 'down') => void) | undefined;

  const settle = (start: FakeStart, onInbound: InboundHandler): Promise<void> | void => {
    if (start === 'down' || start === 'refused') throw new FakeStartError(start === 'refused');
    if (start === 'held')
      return new Promise<void>((resolve, reject) => {
        held = (outcome) => {
          held = undefined;
          if (outcome === 'down') reject(new FakeStartError(false));
          else {
            handler = onInbound;
            resolve();
          }
        };
      });
    handler = onInbound;
  };

  return {
    name,
    calls,
    sent,
    deltas,
    get running() {
      return handler !== undefined;
    },
    async start(onInbound) {
      calls.push('start');
      await settle(plan.shift() ?? 'ok', onInbound);
    },
    async stop() {
      calls.push('stop');
      handler = undefined;
    },
    async send(route, message) {
      sent.push({ route, message });
    },
    sendDelta(route, delta) {
      deltas.push({ route, delta });
    },
    tokenRefused: (error) => error instanceof FakeStartError && error.refused,
    watch(listener) {
      watcher = listener;
    },
    planStarts(...starts) {
      plan.push(...starts);
    },
    release(outcome = 'ok') {
      if (held === undefined) throw new Error('fake channel: no start is held');
      held(outcome);
    },
    receive(message, options) {
      if (handler === undefined) return Promise.reject(new Error(`fake ${name}: not started`));
      return handler(
        {
          channel: name,
          chatType: 'direct',
          chatId: 'U1',
          senderId: `${name}:U1`,
          messageId: `m${calls.length}`,
          ...message,
        },
        options,
      );
    },
    connection(event, error) {
      watcher?.(event, error);
    },
  };
}
