import type { Logger } from '../../../base/logging/index.js';

const MAX_HELD_EVENTS = 20;

/** Each user's open event streams, and the events held for a user with none open. */
export interface WebchatListeners<E> {
  /** Sends `event` to every open stream of `user`. */
  publish(user: string, event: E): void;
  /** Publishes `event`, or holds it (the latest 20) for `user`'s next stream when `keep` and none is open. */
  deliver(user: string, event: E, keep: boolean): void;
  /** Opens a stream: the held events first; the returned function closes it. */
  subscribe(user: string, listener: (event: E) => void): () => void;
  /** Sends `last` to every stream and forgets them all. */
  closeAll(last: E): void;
}

export function createWebchatListeners<E>(logger: Logger): WebchatListeners<E> {
  const listeners = new Map<string, Set<(event: E) => void>>();
  const held = new Map<string, E[]>();
  const publish = (user: string, event: E) => {
    for (const listener of listeners.get(user) ?? []) listener(event);
  };
  return {
    publish,
    deliver(user, event, keep) {
      if (keep && !listeners.has(user)) {
        const queue = held.get(user) ?? [];
        queue.push(event);
        held.set(user, queue.slice(-MAX_HELD_EVENTS));
        return;
      }
      publish(user, event);
    },
    subscribe(user, listener) {
      let set = listeners.get(user);
      if (!set) {
        set = new Set();
        listeners.set(user, set);
      }
      set.add(listener);
      logger.debug({ user, listeners: set.size }, 'event stream opened');
      for (const event of held.get(user) ?? []) listener(event);
      held.delete(user);
      return () => {
        logger.debug({ user }, 'event stream closed');
        const current = listeners.get(user);
        current?.delete(listener);
        if (current?.size === 0) listeners.delete(user);
      };
    },
    closeAll(last) {
      for (const set of listeners.values()) for (const listener of set) listener(last);
      listeners.clear();
    },
  };
}
