/**
 * The fake Slack's memory of channel messages, for `conversations.replies`: every message event
 * it delivered and every post of the bot, answered as Slack pages a thread (its first message,
 * then the replies, oldest first; `latest` / `inclusive` bound the end, `limit` and `cursor` page).
 */

interface LoggedMessage {
  channel: string;
  ts: string;
  thread_ts?: string;
  user?: string;
  bot_id?: string;
  subtype?: string;
  text?: string;
}

export interface ThreadLog {
  /** Keeps a message event (or a post) when it is a channel message with a `ts`. */
  record(event: Record<string, unknown>): void;
  /** The `conversations.replies` answer for form-encoded `args`. */
  replies(args: Record<string, string>): Record<string, unknown>;
  /**
   * The `conversations.history` answer: a channel's messages outside threads (a thread's first
   * message is one), newest first, after `oldest` (not inclusive), at most `limit`.
   */
  history(args: Record<string, string>): Record<string, unknown>;
}

export function createThreadLog(): ThreadLog {
  const messages = new Map<string, LoggedMessage>();
  return {
    record(event) {
      // A mention sent as `app_mention` alone is a message in the channel all the same.
      if (event.type !== undefined && event.type !== 'message' && event.type !== 'app_mention') return;
      if (typeof event.channel !== 'string' || typeof event.ts !== 'string') return;
      const { type: _type, team: _team, channel_type: _channelType, ...kept } = event;
      messages.set(`${event.channel}:${event.ts}`, kept as unknown as LoggedMessage);
    },
    replies(args) {
      const channel = args.channel ?? '';
      const root = messages.get(`${channel}:${args.ts ?? ''}`);
      if (root === undefined) return { ok: false, error: 'thread_not_found' };
      const inclusive = args.inclusive === 'true' || args.inclusive === '1';
      const latest = args.latest === undefined ? Number.POSITIVE_INFINITY : Number(args.latest);
      const thread = [...messages.values()]
        .filter((message) => message.channel === channel)
        .filter((message) => message.ts === root.ts || message.thread_ts === root.ts)
        .filter((message) => (inclusive ? Number(message.ts) <= latest : Number(message.ts) < latest))
        .sort((a, b) => Number(a.ts) - Number(b.ts));
      const start = Number(args.cursor ?? 0);
      const limit = Number(args.limit ?? 1000);
      const page = thread.slice(start, start + limit).map(({ channel: _channel, ...message }) => ({
        type: 'message',
        ...message,
      }));
      const more = start + limit < thread.length;
      return {
        ok: true,
        messages: page,
        has_more: more,
        response_metadata: { next_cursor: more ? String(start + limit) : '' },
      };
    },
    history(args) {
      const channel = args.channel ?? '';
      const oldest = Number(args.oldest ?? 0);
      const found = [...messages.values()]
        .filter((message) => message.channel === channel && Number(message.ts) > oldest)
        .filter((message) => message.thread_ts === undefined || message.thread_ts === message.ts)
        .sort((a, b) => Number(b.ts) - Number(a.ts));
      const limit = Number(args.limit ?? 100);
      const page = found.slice(0, limit).map(({ channel: _channel, ...message }) => ({
        type: 'message',
        ...message,
      }));
      const more = limit < found.length;
      return {
        ok: true,
        messages: page,
        has_more: more,
        response_metadata: { next_cursor: '' },
      };
    },
  };
}
