import type { App } from '@slack/bolt';
import { SwitchboardError } from '../../../base/errors/index.js';
import type { Logger } from '../../../base/logging/index.js';
import type { InboundHandler, InboundMessage } from '../../../base/messages/index.js';
import type { DirectChannels } from '../direct-channels.js';
import type { HeldEvents } from '../held-events.js';
import type { ChannelNames } from '../names.js';
import { ACK_BUDGET_MS, EventNotStoredError, withinBudget } from './ack.js';
import type { SlackGate } from './gate.js';
import { toInbound } from './inbound.js';
import type { SlackThreadReader } from './slack-thread.js';
import type { RawEventBody, RawMessageEvent, SlackIdentity } from './types.js';

const TURN_REACTION = 'eyes';

/** One delivery of a Slack event as the listener got it. */
interface Delivery {
  raw: RawMessageEvent;
  body: RawEventBody;
  /** An `app_mention` event (a mention also comes as `message`). */
  mentionEvent: boolean;
  /** Slack numbered it as a redelivery. */
  redelivery: boolean;
}

/** An event held until its message is stored (`HeldEvents`): the delivery as the listener got it. */
export type HeldDelivery = Delivery;

export interface SlackEventsOptions {
  app: App;
  client: App['client'];
  logger: Logger;
  gate: SlackGate;
  /** Learns the sender's and the channel's names in the background (never awaited). */
  names: ChannelNames;
  /** Reads a thread's earlier messages when the bot is first mentioned there. */
  threads: SlackThreadReader;
  /**
   * Events acknowledged before their message was stored (a message whose files still download),
   * kept in `ChannelMemory` until the router has the message.
   */
  held: HeldEvents<HeldDelivery>;
  directChannels: DirectChannels;
  /** Whether the event's files are downloaded (a file store is configured). */
  takesFiles: boolean;
  /** The message with the files of its event downloaded and saved (`slack-files.ts`). */
  withFiles(raw: RawMessageEvent, message: InboundMessage): Promise<InboundMessage>;
  /** The router's dispatch while the adapter runs; undefined while it is stopped. */
  handler(): InboundHandler | undefined;
  identity(): SlackIdentity;
}

/**
 * The `message` and `app_mention` events: gate, store, acknowledge. Slack is told an event arrived
 * only once the router stored its message; a message with files is held first (`HeldEvents`) and
 * handed on once its files downloaded, or by the next start.
 */
export class SlackEvents {
  readonly #options: SlackEventsOptions;

  /**
   * Registers the app's listeners for `message` and `app_mention`, and its error handler, which
   * rethrows `EventNotStoredError` so the receiver does not acknowledge the event.
   */
  constructor(options: SlackEventsOptions) {
    this.#options = options;
    options.app.event('message', (args) => this.#listen(args, false));
    options.app.event('app_mention', (args) => this.#listen(args, true));
    options.app.error(async (error) => {
      // Rethrown so the receiver does not acknowledge the event: Slack delivers it again.
      if (error instanceof EventNotStoredError) throw error;
      options.logger.error({ err: error }, 'slack app error');
    });
  }

  /**
   * Bolt's listener: returns once the message is stored (or not admitted), and Slack is told the
   * event arrived only then (HTTP: `processBeforeResponse`; Socket Mode: `holdEnvelopeAcks`).
   * After ACK_BUDGET_MS it returns anyway, as Slack would otherwise deliver the event again.
   */
  async #listen(
    { event, body, context }: { event: unknown; body: unknown; context: { retryNum?: number } },
    mentionEvent: boolean,
  ): Promise<void> {
    const { logger } = this.#options;
    const raw = event as RawMessageEvent;
    // Slack numbers its redeliveries (HTTP: X-Slack-Retry-Num; Socket Mode: retry_attempt).
    const redelivery = (context.retryNum ?? 0) > 0;
    const settled = this.#receive({ raw, body: body as RawEventBody, mentionEvent, redelivery });
    const outcome = await withinBudget(settled, ACK_BUDGET_MS).catch((error: unknown) => {
      logger.warn(
        { err: error, channel: raw.channel, ts: raw.ts },
        'slack event not stored; not acknowledged',
      );
      throw error instanceof EventNotStoredError ? error : new EventNotStoredError({ cause: error });
    });
    if (outcome !== 'late') return;
    logger.warn(
      { channel: raw.channel, ts: raw.ts, budgetMs: ACK_BUDGET_MS },
      'slack event acknowledged before the store said it was kept (the store is slow)',
    );
    settled.catch((error: unknown) =>
      logger.error({ err: error, channel: raw.channel, ts: raw.ts }, 'acknowledged slack event not stored'),
    );
  }

  /**
   * Resolves once the event is settled for Slack: not admitted, or handed over and stored by the
   * router (`accepted`); the turn goes on after that. Rejects when the message was not stored.
   */
  async #receive(delivery: Delivery): Promise<void> {
    const { gate, held } = this.#options;
    // Stopped (a restart) after Bolt took the request: not acknowledged, so Slack delivers it again.
    const stopped = () =>
      new EventNotStoredError({
        cause: new SwitchboardError('CHANNEL_STOPPED', 'the Slack channel stopped'),
      });
    if (this.#options.handler() === undefined) throw stopped();
    const identity = this.#options.identity();
    const admitted = await gate.admit(delivery.raw, delivery.body, delivery.mentionEvent, identity);
    if (!admitted) return;
    // Read again: the adapter may have stopped while the store answered.
    const handler = this.#options.handler();
    if (handler === undefined) throw stopped();
    if (admitted === 'pairing') return this.#pairing(handler, delivery);
    if (this.#options.takesFiles && hasFiles(delivery.raw)) {
      // Its files may take long to download (up to 30 s each): the event is kept first and
      // acknowledged, and the message goes to the router once they arrived (or from the next start).
      await held.add(heldId(delivery), delivery).catch((error: unknown) => {
        gate.dropped(delivery.raw, delivery.body);
        throw new EventNotStoredError({ cause: error });
      });
      this.#handOnHeld(delivery);
      return;
    }
    await new Promise<void>((accepted, notStored) => {
      // A turn that ended is accepted too (whatever the handler said before).
      this.#deliver(handler, delivery, accepted).then(() => accepted(), notStored);
    });
  }

  /**
   * A held event's message, its files downloaded, to the router; forgotten once the router stored
   * it. One the router did not store (the adapter stopped, the store failed) stays held for the
   * next start.
   */
  #handOnHeld(delivery: Delivery): void {
    const handler = this.#options.handler();
    if (handler === undefined) return;
    const id = heldId(delivery);
    this.#deliver(handler, delivery, () => void this.#options.held.remove(id)).catch((error: unknown) =>
      this.#options.logger.error(
        { err: error, channel: delivery.raw.channel, ts: delivery.raw.ts },
        'slack message with files not stored; it is handed on again at the next start',
      ),
    );
  }

  /**
   * At start: the events the last process acknowledged but did not see stored (it died while their
   * files downloaded) go to the router again, as redeliveries, so one it did store is not stored twice.
   */
  async handOnHeldEvents(): Promise<void> {
    const held = await this.#options.held.list();
    if (held.length > 0)
      this.#options.logger.info({ events: held.length }, 'slack events held by the last process handed on');
    for (const { value } of held) this.#handOnHeld({ ...value, redelivery: true });
  }

  /**
   * An unknown sender's direct message, for a pairing code: its text only (no files, no reaction),
   * marked `unknownSender` so the router answers with the code and nothing else.
   */
  async #pairing(handler: InboundHandler, { raw, body }: Delivery): Promise<void> {
    const message = { ...toInbound(raw, body, this.#options.identity().botUserId), unknownSender: true };
    if (raw.user !== undefined) this.#options.directChannels.learn(raw.user, raw.channel);
    try {
      await handler(message, { accepted: () => void this.#options.gate.taken(raw, body) });
    } catch (error) {
      this.#options.gate.dropped(raw, body);
      throw new EventNotStoredError({ cause: error });
    }
  }

  /**
   * Hands the message to the router before anything that talks to Slack: the eyes reaction is
   * started, not awaited, so a slow or rate-limited `reactions.add` never delays the store.
   * Rejects only when the router failed before the message was stored.
   */
  async #deliver(
    handler: InboundHandler,
    { raw, body, redelivery }: Delivery,
    accepted: () => void,
  ): Promise<void> {
    const { gate, client, logger, threads } = this.#options;
    const warn = (error: unknown, text: string, details: object) =>
      logger.warn({ err: error, ...details }, text);
    const direct = raw.channel_type === 'im';
    const sender = raw.user ?? raw.bot_id ?? 'unknown';
    if (direct) this.#options.directChannels.learn(sender, raw.channel);
    if (raw.user) this.#options.names.learn({ user: raw.user, ...(direct ? {} : { chat: raw.channel }) });
    const joined = direct ? undefined : gate.joinThread(raw.channel, raw.thread_ts ?? raw.ts);
    // A thread new to the bot has its earlier messages read once (`slack-thread.ts`).
    const [context, inbound] = await Promise.all([
      threads.earlier(raw),
      this.#options.withFiles(raw, toInbound(raw, body, this.#options.identity().botUserId)),
    ]);
    const message = context.length > 0 ? { ...inbound, context } : inbound;
    const reaction = { channel: raw.channel, timestamp: raw.ts, name: TURN_REACTION };
    const reacted = client.reactions
      .add(reaction)
      .then(() => true)
      .catch((error: unknown) => {
        warn(error, 'reactions.add failed', reaction);
        return false;
      });
    let stored = false;
    try {
      await handler(message, {
        redelivery,
        accepted: () => {
          stored = true;
          accepted();
          void gate.taken(raw, body);
          if (!direct) void threads.heard(raw.channel, raw.thread_ts ?? raw.ts);
        },
      });
    } catch (error) {
      if (!stored) {
        gate.dropped(raw, body);
        throw new EventNotStoredError({ cause: error });
      }
      logger.error({ err: error, chatId: message.chatId, messageId: raw.ts }, 'slack turn failed');
    } finally {
      await joined?.catch((error: unknown) => warn(error, 'slack thread not remembered', reaction));
      // Removed only once added: a removal that overtook the add would leave the eyes on for good.
      if (await reacted)
        await client.reactions
          .remove(reaction)
          .catch((error: unknown) => warn(error, 'reactions.remove failed', reaction));
    }
  }
}

/** Whether the event's message comes with files to download. */
function hasFiles(raw: RawMessageEvent): boolean {
  return Array.isArray(raw.files) && raw.files.length > 0;
}

const heldId = ({ raw }: Delivery) => `${raw.channel}:${raw.ts}`;
