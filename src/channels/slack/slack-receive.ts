import { SwitchboardError } from '../../errors/index.js';
import type { InboundHandler } from '../../messages/index.js';
import { ACK_BUDGET_MS, EventNotStoredError, withinBudget } from './ack.js';
import { toInbound } from './inbound.js';
import type { SlackState } from './slack-adapter.js';
import { withSlackFiles } from './slack-files.js';
import type { RawEventBody, RawMessageEvent } from './types.js';

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

/**
 * Registers the app's listeners for `message` and `app_mention`, and its error handler, which
 * rethrows `EventNotStoredError` so the receiver does not acknowledge the event.
 */
export function listenForEvents(state: SlackState): void {
  state.bolt.app.event('message', eventListener(state, false));
  state.bolt.app.event('app_mention', eventListener(state, true));
  state.bolt.app.error(async (error) => {
    // Rethrown so the receiver does not acknowledge the event: Slack delivers it again.
    if (error instanceof EventNotStoredError) throw error;
    state.logger.error({ err: error }, 'slack app error');
  });
}

/**
 * Bolt's listener: returns once the message is stored (or not admitted), and Slack is told the
 * event arrived only then (HTTP: `processBeforeResponse`; Socket Mode: `holdEnvelopeAcks`).
 * After ACK_BUDGET_MS it returns anyway, as Slack would otherwise deliver the event again.
 */
function eventListener(state: SlackState, mentionEvent: boolean) {
  const { logger } = state;
  return async ({
    event,
    body,
    context,
  }: {
    event: unknown;
    body: unknown;
    context: { retryNum?: number };
  }) => {
    const raw = event as RawMessageEvent;
    // Slack numbers its redeliveries (HTTP: X-Slack-Retry-Num; Socket Mode: retry_attempt).
    const redelivery = (context.retryNum ?? 0) > 0;
    const settled = receive(state, { raw, body: body as RawEventBody, mentionEvent, redelivery });
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
  };
}

/**
 * Resolves once the event is settled for Slack: not admitted, or handed over and stored by the
 * router (`accepted`); the turn goes on after that. Rejects when the message was not stored.
 */
async function receive(state: SlackState, delivery: Delivery): Promise<void> {
  // Stopped (a restart) after Bolt took the request: not acknowledged, so Slack delivers it again.
  const stopped = () =>
    new EventNotStoredError({ cause: new SwitchboardError('CHANNEL_STOPPED', 'the Slack channel stopped') });
  if (state.onInbound === undefined) throw stopped();
  const identity = { botUserId: state.botUserId, botId: state.botId };
  if (!(await state.gate.admit(delivery.raw, delivery.body, delivery.mentionEvent, identity))) return;
  // Read again: the adapter may have stopped while the store answered.
  const handler = state.onInbound;
  if (handler === undefined) throw stopped();
  if (withFiles(state, delivery.raw)) {
    // Its files may take long to download (up to 30 s each): the event is kept first and
    // acknowledged, and the message goes to the router once they arrived (or from the next start).
    await state.held.add(heldId(delivery), delivery).catch((error: unknown) => {
      state.gate.dropped(delivery.raw, delivery.body);
      throw new EventNotStoredError({ cause: error });
    });
    handOnHeld(state, delivery);
    return;
  }
  await new Promise<void>((accepted, notStored) => {
    // A turn that ended is accepted too (whatever the handler said before).
    deliver(state, handler, delivery, accepted).then(() => accepted(), notStored);
  });
}

/** An event held until its message is stored (`HeldEvents`): the delivery as the listener got it. */
export type HeldDelivery = Delivery;

/** Whether the event's message comes with files to download (and there is somewhere to save them). */
function withFiles(state: SlackState, raw: RawMessageEvent): boolean {
  return state.files !== undefined && Array.isArray(raw.files) && raw.files.length > 0;
}

const heldId = ({ raw }: Delivery) => `${raw.channel}:${raw.ts}`;

/**
 * A held event's message, its files downloaded, to the router; forgotten once the router stored
 * it. One the router did not store (the adapter stopped, the store failed) stays held for the
 * next start.
 */
function handOnHeld(state: SlackState, delivery: Delivery): void {
  const handler = state.onInbound;
  if (handler === undefined) return;
  const id = heldId(delivery);
  deliver(state, handler, delivery, () => void state.held.remove(id)).catch((error: unknown) =>
    state.logger.error(
      { err: error, channel: delivery.raw.channel, ts: delivery.raw.ts },
      'slack message with files not stored; it is handed on again at the next start',
    ),
  );
}

/**
 * At start: the events the last process acknowledged but did not see stored (it died while their
 * files downloaded) go to the router again, as redeliveries, so one it did store is not stored twice.
 */
export async function handOnHeldEvents(state: SlackState): Promise<void> {
  const held = await state.held.list();
  if (held.length > 0)
    state.logger.info({ events: held.length }, 'slack events held by the last process handed on');
  for (const { value } of held) handOnHeld(state, { ...value, redelivery: true });
}

/**
 * Hands the message to the router before anything that talks to Slack: the eyes reaction is
 * started, not awaited, so a slow or rate-limited `reactions.add` never delays the store.
 * Rejects only when the router failed before the message was stored.
 */
async function deliver(
  state: SlackState,
  handler: InboundHandler,
  { raw, body, redelivery }: Delivery,
  accepted: () => void,
): Promise<void> {
  const { gate, client, logger } = state;
  const warn = (error: unknown, text: string, details: object) =>
    logger.warn({ err: error, ...details }, text);
  const direct = raw.channel_type === 'im';
  const sender = raw.user ?? raw.bot_id ?? 'unknown';
  if (direct) state.directChannels.set(sender, raw.channel);
  const joined = direct ? undefined : gate.joinThread(raw.channel, raw.thread_ts ?? raw.ts);
  // A thread new to the bot has its earlier messages read once (`slack-thread.ts`).
  const [context, inbound] = await Promise.all([
    state.threads.earlier(raw),
    withSlackFiles(state, raw, toInbound(raw, body, state.botUserId)),
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
        if (!direct) void state.threads.heard(raw.channel, raw.thread_ts ?? raw.ts);
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
