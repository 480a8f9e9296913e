import type { Logger } from '../../base/logging/index.js';
import { MESSAGE_SIGNAL_KIND, type Signal } from './types.js';
import type { WakeObserver } from './wake.js';

/** The ids of the messages a wake turn has started carrying, and when it started. */
export type MessagesWoken = (messageIds: readonly string[], at: Date) => void;

/**
 * "The wake turn carrying message X started", for toolpack message receipts (a message to an
 * agent is `delivered` then): wraps the wake observer, and on each start tells the listeners the
 * ids of the `message` signals' payloads (merged ones included). A listener that throws is logged.
 */
export function createWokenMessages(logger: Logger) {
  const listeners = new Set<MessagesWoken>();
  function started(signals: readonly Signal[]): void {
    const ids = messageIdsOf(signals);
    if (ids.length === 0) return;
    const at = new Date();
    for (const listener of listeners) {
      try {
        listener(ids, at);
      } catch (error) {
        logger.warn({ err: error, messages: ids }, 'a woken-message listener failed');
      }
    }
  }
  return {
    /** The observer to give the waker: `inner`'s, plus the listeners on each start. */
    wrap(inner: WakeObserver): WakeObserver {
      return {
        started(agentId, signals) {
          started(signals);
          inner.started(agentId, signals);
        },
        ended: (agentId, ended) => inner.ended(agentId, ended),
      };
    },
    /** Adds a listener; returns the function that removes it. */
    listen(listener: MessagesWoken): () => void {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

function messageIdsOf(signals: readonly Signal[]): string[] {
  return signals
    .filter((signal) => signal.kind === MESSAGE_SIGNAL_KIND)
    .flatMap((signal) => signal.payloads ?? (signal.payload === undefined ? [] : [signal.payload]))
    .map((payload) => (payload as { id?: unknown } | null)?.id)
    .filter((id): id is string => typeof id === 'string');
}
