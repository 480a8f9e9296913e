import { errorText } from '../../../base/errors/index.js';
import type { Logger } from '../../../base/logging/index.js';
import type { Outbox } from './outbox.js';
import type { MessageStatus } from './outbox-journal.js';
import type { ProjectMessage } from './project-message.js';

/**
 * What a delivery did: `posted` (to a route or to `user`: delivered now) or `queued` (a signal for
 * an agent: delivered once the wake turn carrying it starts, `messagesWoken`).
 */
export type DeliveryOutcome = 'posted' | 'queued';

/** How a refused delivery is retried: `attempts` in all, the n-th retry after `retryDelayMs × backoffFactor^(n-1)`. */
export interface DeliveryRetry {
  attempts: number;
  retryDelayMs: number;
  backoffFactor: number;
}

/** 3 attempts, 1 s then 2 s apart. */
export const DEFAULT_DELIVERY_RETRY: DeliveryRetry = Object.freeze({
  attempts: 3,
  retryDelayMs: 1000,
  backoffFactor: 2,
});

export interface MessageSenderOptions {
  toolpackId: string;
  /** Posts or queues the message; a rejection is a refusal, retried. */
  deliver(message: ProjectMessage): Promise<DeliveryOutcome>;
  /** Without one, statuses are kept in memory only (tests of the store alone). */
  outbox?: Outbox | undefined;
  retry?: DeliveryRetry | undefined;
  logger: Logger;
  now?: () => Date;
}

/**
 * Delivery of a toolpack's messages with receipts. A message is journaled (`pending`), delivered
 * (`posted` → `delivered`; `queued` → `pending` until its wake turn starts), and a refusal is
 * retried with back-off until the attempts are spent (`failed`, the last error kept). The outbox
 * entry stays open until the outcome is final or queued, so a restart during the retries resumes
 * them (with the attempts already made counted). Retry timers are cleared by `stop`.
 */
export function createMessageSender(options: MessageSenderOptions) {
  const state: SenderState = {
    options,
    retry: options.retry ?? DEFAULT_DELIVERY_RETRY,
    now: options.now ?? (() => new Date()),
    memory: new Map(),
    timers: new Set(),
    stopped: false,
  };
  return {
    /** Starts delivering a message `outbox.add` has journaled; resolves after its first attempt. */
    send(message: ProjectMessage): Promise<void> {
      if (statusOf(state, message.id) === undefined)
        record(state, message.id, { state: 'pending', attempts: 0 });
      return attempt(state, message);
    },
    /**
     * Delivers again a message the last process left open (`outbox.open()` at start). One whose
     * final status was recorded (its settle line was lost to a kill) is only settled, not sent twice.
     */
    async resume(message: ProjectMessage): Promise<void> {
      const known = statusOf(state, message.id)?.state;
      if (known === 'delivered' || known === 'failed') settle(state, message.id);
      else await attempt(state, message);
    },
    /** The latest status of a message this toolpack sent, or undefined for an unknown id. */
    status: (id: string): MessageStatus | undefined => {
      const known = statusOf(state, id);
      return known === undefined ? undefined : { ...known };
    },
    /** The wake turns carrying these message ids started: those this toolpack sent are delivered. */
    woken(messageIds: readonly string[], at: Date): void {
      for (const id of messageIds) {
        const known = statusOf(state, id);
        if (known === undefined || known.state === 'delivered') continue;
        record(state, id, delivered(Math.max(1, known.attempts), at));
      }
    },
    /** Clears the retry timers (the gateway stops); a message still being retried stays open for the next start. */
    stop(): void {
      state.stopped = true;
      for (const timer of state.timers) clearTimeout(timer);
      state.timers.clear();
    },
  };
}

interface SenderState {
  options: MessageSenderOptions;
  retry: DeliveryRetry;
  now: () => Date;
  /** Statuses when there is no outbox. */
  memory: Map<string, MessageStatus>;
  timers: Set<NodeJS.Timeout>;
  stopped: boolean;
}

function statusOf(state: SenderState, id: string): MessageStatus | undefined {
  return state.options.outbox?.status(id) ?? state.memory.get(id);
}

function record(state: SenderState, id: string, next: MessageStatus): void {
  if (state.options.outbox) state.options.outbox.record(id, next);
  else state.memory.set(id, next);
}

function settle(state: SenderState, id: string): void {
  try {
    state.options.outbox?.settle(id);
  } catch (error) {
    const { toolpackId, logger } = state.options;
    logger.error({ err: error, toolpack: toolpackId, messageId: id }, 'toolpack outbox not updated');
  }
}

/** One attempt; on a refusal, the next one is scheduled (or the message fails). Never rejects. */
async function attempt(state: SenderState, message: ProjectMessage): Promise<void> {
  const { toolpackId, logger } = state.options;
  const attempts = (statusOf(state, message.id)?.attempts ?? 0) + 1;
  try {
    const outcome = await state.options.deliver(message);
    // A wake turn may have started already (the tick ran first): never downgrade `delivered`.
    if (statusOf(state, message.id)?.state !== 'delivered') {
      const next: MessageStatus =
        outcome === 'posted' ? delivered(attempts, state.now()) : { state: 'pending', attempts };
      record(state, message.id, next);
    }
    settle(state, message.id);
  } catch (error) {
    const reason = errorText(error);
    const last = attempts >= state.retry.attempts;
    record(state, message.id, { state: last ? 'failed' : 'pending', attempts, error: reason });
    const fields = { toolpack: toolpackId, messageId: message.id, attempts, reason };
    if (last) {
      logger.error(fields, 'toolpack message not delivered (no attempts left)');
      settle(state, message.id);
      return;
    }
    logger.warn(fields, 'toolpack message refused; retried later');
    schedule(state, message, state.retry.retryDelayMs * state.retry.backoffFactor ** (attempts - 1));
  }
}

function schedule(state: SenderState, message: ProjectMessage, delayMs: number): void {
  if (state.stopped) return;
  const timer = setTimeout(() => {
    state.timers.delete(timer);
    void attempt(state, message);
  }, delayMs);
  state.timers.add(timer);
}

export type MessageSender = ReturnType<typeof createMessageSender>;

function delivered(attempts: number, at: Date): MessageStatus {
  return { state: 'delivered', attempts, deliveredAt: at.toISOString() };
}
