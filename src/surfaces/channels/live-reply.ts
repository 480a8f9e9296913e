import { setTimeout as sleep } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../../base/logging/index.js';
import { splitMessage } from './split-message.js';

/** Keys (messages or channels) whose recent edits are remembered. */
const BUDGET_KEYS = 10000;
/** Rate-limited answers waited out in a row before a call gives up. */
const MAX_RATE_LIMITED = 5;

/** At most `max` posts or edits per key in any `windowMs`: Slack's per-message, Discord's per-channel limit. */
export interface EditBudget {
  /** Resolves once one more call on `key` keeps within the budget, and counts it. */
  take(key: string): Promise<void>;
}

export function createEditBudget(options: { max: number; windowMs: number }): EditBudget {
  const spent = new LRUCache<string, number[]>({ max: BUDGET_KEYS });
  return {
    async take(key) {
      for (;;) {
        const now = Date.now();
        const recent = (spent.get(key) ?? []).filter((at) => now - at < options.windowMs);
        const oldest = recent[0];
        if (recent.length < options.max || oldest === undefined) {
          recent.push(now);
          spent.set(key, recent);
          return;
        }
        spent.set(key, recent);
        await sleep(options.windowMs - (now - oldest));
      }
    },
  };
}

/** One part of a live reply as the platform shows it. */
export interface LivePart {
  /** Markdown, at most the reply's `limit` characters, fences closed. */
  text: string;
  /** The last part of a final text that has buttons (they go under it). */
  lastOfFinal: boolean;
}

/** How a live reply reaches one platform. */
export interface LiveTransport<Ref> {
  post(part: LivePart): Promise<Ref>;
  edit(ref: Ref, part: LivePart): Promise<void>;
  /** Deletes a message it posted; a platform without it keeps a discarded line as it is. */
  remove?(ref: Ref): Promise<void>;
  /** Milliseconds to wait before trying a failed call again (a rate limit), or undefined to fail. */
  retryAfter(error: unknown): number | undefined;
}

export interface LiveReplyOptions<Ref> {
  transport: LiveTransport<Ref>;
  /** A part's longest text: longer texts become several messages, split outside code fences. */
  limit: number;
  budget: EditBudget;
  /** Which budget the reply's calls count against (the message's or the channel's). */
  budgetKey: string;
  logger: Logger;
}

/** A reply shown while it is written: a placeholder message edited as text arrives, then the final text. */
export interface LiveReply {
  /** Shows `text` (all of it so far) as soon as the budget allows; newer texts replace waiting ones. */
  show(text: string): void;
  /**
   * Shows the final `text` (with `buttons`, its last part is posted as `lastOfFinal`); resolves once
   * the platform has it, rejects when it could not.
   */
  finish(text: string, buttons?: boolean): Promise<void>;
  /** Deletes what it posted (a status line no reply took); nothing is shown after. Failures are logged. */
  discard(): Promise<void>;
}

/**
 * A message on a platform that follows a text as it grows. Calls wait for the budget, so updates
 * coalesce: only the newest text is sent after a wait. A rate-limited call is waited out and tried
 * again (with the newest text). The final text replaces everything shown; a text over `limit`
 * continues in more messages (the split of `splitMessage`).
 */
export function createLiveReply<Ref>(options: LiveReplyOptions<Ref>): LiveReply {
  const { transport, budget, budgetKey } = options;
  const shown: { ref: Ref; signature: string }[] = [];
  let wanted = '';
  let final = false;
  let buttons = false;
  let synced: string | undefined;
  let running: Promise<void> | undefined;

  const call = async <T>(attempt: () => Promise<T>): Promise<T> => {
    for (let tries = 1; ; tries++) {
      await budget.take(budgetKey);
      try {
        return await attempt();
      } catch (error) {
        const wait = transport.retryAfter(error);
        if (wait === undefined || tries >= MAX_RATE_LIMITED) throw error;
        options.logger.debug({ waitMs: wait }, 'live reply rate limited; waiting');
        await sleep(wait);
      }
    }
  };

  const sync = async (text: string, isFinal: boolean) => {
    const decorated = isFinal && buttons;
    const parts = splitMessage(text, options.limit);
    if (parts.length === 0) parts.push('…');
    for (const [index, partText] of parts.entries()) {
      const part = { text: partText, lastOfFinal: decorated && index === parts.length - 1 };
      const signature = `${part.lastOfFinal ? 'final:' : 'part:'}${partText}`;
      const existing = shown[index];
      if (existing === undefined) {
        const ref = await call(() => transport.post(part));
        shown.push({ ref, signature });
      } else if (existing.signature !== signature) {
        await call(() => transport.edit(existing.ref, part));
        existing.signature = signature;
      }
    }
  };

  const run = async () => {
    for (;;) {
      const text = wanted;
      const isFinal = final;
      if (!isFinal && synced === text) return;
      await sync(text, isFinal);
      synced = text;
      if (isFinal) return;
    }
  };

  return {
    show(text) {
      if (final) return;
      wanted = text;
      running ??= run()
        .catch((error: unknown) => options.logger.warn({ err: error }, 'live reply update failed'))
        .finally(() => {
          running = undefined;
        });
    },
    async finish(text, withButtons = false) {
      wanted = text;
      final = true;
      buttons = withButtons;
      // A streaming update under way ends with the final text (or fails, logged); then make sure.
      while (running !== undefined) await running;
      await run();
    },
    async discard() {
      final = true;
      while (running !== undefined) await running;
      const remove = transport.remove;
      if (remove === undefined) return;
      for (const { ref } of shown.splice(0))
        await call(() => remove(ref)).catch((error: unknown) =>
          options.logger.warn({ err: error }, 'live reply status line could not be deleted'),
        );
    },
  };
}

/** Replies still streaming, by reply id; and per route, a tool status line not yet taken by a reply. */
export interface LiveReplies {
  /** Appends `delta` to reply `id` on route `key` (its first part posts the placeholder, or takes the status line). */
  delta(key: string, id: string, delta: string, create: () => LiveReply): void;
  /** Shows a tool status line on route `key`: the next reply there replaces it. */
  status(key: string, text: string, create: () => LiveReply): void;
  /**
   * The live message the final reply `id` on `key` replaces, if any (it is then forgotten). A reply
   * with buttons that did not stream (an approval request) replaces no status line: it is posted
   * as a new message, which notifies, and the status line above it is deleted (where the platform
   * can), so no "running …" line is left behind a request that waits.
   */
  take(key: string, id: string, buttons: boolean): LiveReply | undefined;
}

/** Open replies and status lines kept at most (a turn that never ends its reply is forgotten). */
const OPEN_REPLIES = 1000;

export function createLiveReplies(): LiveReplies {
  const replies = new LRUCache<string, { live: LiveReply; text: string }>({ max: OPEN_REPLIES });
  const statuses = new LRUCache<string, LiveReply>({ max: OPEN_REPLIES });
  return {
    delta(key, id, delta, create) {
      let open = replies.get(id);
      if (open === undefined) {
        const status = statuses.get(key);
        statuses.delete(key);
        open = { live: status ?? create(), text: '' };
        replies.set(id, open);
      }
      open.text += delta;
      if (open.text.trim() !== '') open.live.show(open.text);
    },
    status(key, text, create) {
      let live = statuses.get(key);
      if (live === undefined) {
        live = create();
        statuses.set(key, live);
      }
      live.show(text);
    },
    take(key, id, buttons) {
      const open = replies.get(id);
      if (open !== undefined) {
        replies.delete(id);
        return open.live;
      }
      const status = statuses.get(key);
      statuses.delete(key);
      if (!buttons) return status;
      void status?.discard();
      return undefined;
    },
  };
}
