import type { AgentMessage, Priority, SendOutcome } from '../../../../base/messages/index.js';

/** How many sent messages the log keeps; older ones are forgotten. */
export const MAX_LOGGED_MESSAGES = 500;

/** One message as `messages.conversation` shows it. */
export interface LoggedMessage {
  id: string;
  sender: string;
  /** The recipient the sender named, or the coordinator agent delivery chose when it named none. */
  recipient?: string;
  channel?: string;
  priority: Priority;
  body: string;
  sentAt: string;
  /** Refused by delivery (an unknown recipient, no chat reaching the user): why. */
  refused?: string;
}

export interface MessageLogOptions {
  /** Who gets a message that names neither a recipient nor a channel (delivery's rule). */
  coordinatorAgent: string;
  now?(): Date;
  limit?: number;
}

/**
 * The messages sent in this process, newest last and bounded: `watch` wraps the one `send` every
 * sender goes through (`messages.send`, the WebUI's `messages.send`, a toolpack's
 * `store.sendMessage`), so the log sees each message once with its outcome. Memory only: a restart
 * starts an empty log.
 */
export function createMessageLog(options: MessageLogOptions) {
  const now = options.now ?? (() => new Date());
  const limit = options.limit ?? MAX_LOGGED_MESSAGES;
  const messages: LoggedMessage[] = [];
  let total = 0;
  const add = (message: AgentMessage, outcome: SendOutcome) => {
    total += 1;
    const recipient = message.channel ? message.recipient : (message.recipient ?? options.coordinatorAgent);
    messages.push({
      id: message.id,
      sender: message.sender,
      ...(recipient === undefined ? {} : { recipient }),
      ...(message.channel === undefined ? {} : { channel: message.channel }),
      priority: message.priority,
      body: message.body,
      sentAt: now().toISOString(),
      ...(outcome.ok ? {} : { refused: outcome.reason }),
    });
    if (messages.length > limit) messages.splice(0, messages.length - limit);
  };
  return {
    watch(send: (message: AgentMessage) => Promise<SendOutcome>) {
      return async (message: AgentMessage): Promise<SendOutcome> => {
        const outcome = await send(message);
        add(message, outcome);
        return outcome;
      };
    },
    /** The messages held, oldest first, as `store.db`'s `messages` table shows them. */
    rows: () =>
      messages
        .filter((message) => message.refused === undefined)
        .map(({ sentAt, refused: _refused, ...message }) => ({ ...message, createdAt: sentAt })),
    /** Messages sent since the start (including those the log no longer holds). */
    count: () => total,
    /** Direct messages between two participants (either way), oldest first, at most `count`. */
    between(a: string, b: string, count: number): LoggedMessage[] {
      const pair = messages.filter(
        (message) =>
          message.channel === undefined &&
          ((message.sender === a && message.recipient === b) ||
            (message.sender === b && message.recipient === a)),
      );
      return pair.slice(-count);
    },
    /** Pairs of direct senders and recipients, most recent first. */
    pairs(count: number): { sender: string; recipient: string; count: number; lastAt: string }[] {
      const byPair = new Map<string, { sender: string; recipient: string; count: number; lastAt: string }>();
      for (const message of messages) {
        if (message.channel !== undefined || message.recipient === undefined) continue;
        const key = JSON.stringify([message.sender, message.recipient]);
        const pair = byPair.get(key) ?? {
          sender: message.sender,
          recipient: message.recipient,
          count: 0,
          lastAt: '',
        };
        pair.count += 1;
        pair.lastAt = message.sentAt;
        byPair.set(key, pair);
      }
      return [...byPair.values()].sort((x, y) => y.lastAt.localeCompare(x.lastAt)).slice(0, count);
    },
  };
}

export type MessageLog = ReturnType<typeof createMessageLog>;
