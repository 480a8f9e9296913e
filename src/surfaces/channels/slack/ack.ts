import type { App } from '@slack/bolt';
import pTimeout from 'p-timeout';
import { SwitchboardError } from '../../../base/errors/index.js';

/**
 * Slack's budget for acknowledging an event is 3 s (then it delivers it again); past this the
 * event is acknowledged even though the store has not said the message is kept.
 */
export const ACK_BUDGET_MS = 2500;

/**
 * An event whose message could not be stored: the listener throws it so that Slack is not told the
 * event arrived (HTTP mode answers 500, Socket Mode leaves the envelope unacknowledged) and
 * delivers it again. Bolt passes an error with a `code` to `app.error` as it is (others it wraps),
 * so the error handler can tell this one by class and rethrow it.
 */
export class EventNotStoredError extends SwitchboardError {
  constructor(options: { cause: unknown }) {
    super('CHANNEL_EVENT_NOT_STORED', 'the Slack event was not stored; Slack will deliver it again', options);
    this.name = 'EventNotStoredError';
  }
}

/**
 * Socket Mode: Bolt acknowledges an Events API envelope before any listener runs. This holds that
 * ack until the app has processed the event (its listeners returned: the message is stored, or
 * the budget ran out), and drops it when processing failed, so Slack delivers the event again.
 * HTTP mode needs none of this: `processBeforeResponse` holds the HTTP response the same way.
 */
export function holdEnvelopeAcks(app: App): void {
  const processEvent = app.processEvent.bind(app);
  app.processEvent = async (event) => {
    let held: { response: unknown } | undefined;
    await processEvent({
      ...event,
      ack: async (response?: unknown) => {
        held = { response };
      },
    });
    if (held !== undefined) await event.ack(held.response);
  };
}

/** Resolves with `promise`'s outcome, or with `'late'` once `ms` have passed. */
export function withinBudget<T>(promise: Promise<T>, milliseconds: number): Promise<T | 'late'> {
  return pTimeout(promise, { milliseconds, fallback: () => 'late' as const });
}
