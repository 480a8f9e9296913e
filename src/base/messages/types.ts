/**
 * The words every layer shares about a chat message: where it came from, where a reply goes, what
 * happened to it. This module imports nothing, so channels, routing, agents and the gateway can all
 * speak it without importing one another.
 */

/** A chat platform. */
export type ChannelName = 'webchat' | 'slack' | 'discord';

/**
 * Where a session's replies go: a chat, optionally a thread in it. `internal` is a session no
 * chat reads (a sub-agent's, an agent's main session): its replies are recorded, never sent.
 */
export interface DeliveryRoute {
  channel: ChannelName | 'internal';
  chatType: 'direct' | 'channel';
  /** Platform channel id, or for direct chats the user id. */
  chatId: string;
  threadId?: string;
}

/** A chat message as every adapter normalizes it. The sender id comes from the platform, never from text. */
export interface InboundMessage {
  channel: ChannelName;
  chatType: 'direct' | 'channel';
  /** Platform channel id; for direct chats, the user id. */
  chatId: string;
  threadId?: string;
  /** `webchat:<user>`, `slack:<U…>`, `discord:<snowflake>`. */
  senderId: string;
  text: string;
  /** Platform message id (unique per channel). */
  messageId: string;
  /** Slack team id, when the platform has one. */
  teamId?: string;
  /** Discord guild id, when the platform has one. */
  guildId?: string;
  /**
   * A click on a button of a reply (`ReplyAction`): its `value`, unchanged; `text` is then ''.
   * The router answers it at once (never stored in the inbox, never a turn), and the adapter shows
   * the first reply's text in place of the clicked message's buttons.
   */
  action?: string;
  /**
   * A platform's own command (a Slack slash command, a Discord application command) whose `text`
   * is the chat command (`/status`): the router answers it in `DispatchResult.replies` only, and
   * the adapter shows the answer where the platform wants it (never delivered by route).
   */
  nativeCommand?: boolean;
  /** Files that came with the message (Slack files, Discord attachments), saved by the adapter. */
  files?: InboundFile[];
  /**
   * A direct message from a sender the platform's access lists (`allowFrom`, `people`) do not let
   * in, passed on only because the platform has pairing on (`channels.<platform>.pairing`): the
   * router answers it with a pairing code and nothing else (no inbox, no session, no turn).
   */
  unknownSender?: boolean;
  /**
   * Others' earlier words in the thread the message was written in, oldest first: what the bot
   * did not hear before it was first mentioned there (`channels.<platform>.threadHistoryLimit`).
   * The router records them in the session, marked as context, before the message, and only in
   * a session that has no transcript yet.
   */
  context?: ContextMessage[];
}

/**
 * A file posted with a message. Saved: `path` is where the agent finds it (`/uploads/…`, in its sender's turns in that chat).
 * Not saved (too large, refused by the platform): no `path`, and `error` says why in words the
 * model can pass on (a missing scope names it).
 */
export interface InboundFile {
  name: string;
  /** The media type the platform gave (`image/png`); `application/octet-stream` when it gave none. */
  type: string;
  /** Bytes. */
  size: number;
  path?: string;
  error?: string;
}

/** One earlier message of a thread, as `InboundMessage.context` carries it. */
export interface ContextMessage {
  /** `slack:<U…>`, `discord:<snowflake>`: from the platform, as a sender id. */
  senderId: string;
  text: string;
}

/**
 * A button under a reply (an approval's Approve and Deny). `value` is opaque to adapters (at most
 * 100 characters, Discord's limit for a component id): it comes back unchanged as the
 * `InboundMessage.action` of a click. A platform without buttons shows the reply's text only,
 * which always says how to answer in text.
 */
export interface ReplyAction {
  label: string;
  value: string;
  style?: 'primary' | 'danger';
}

/** A complete reply. */
export interface OutboundMessage {
  /** Unique per reply; stream parts carry the same id. */
  id: string;
  text: string;
  /**
   * Not an answer to a request (a restart note): nobody may be connected to read it, so an
   * adapter that can hold messages for an absent reader keeps it until it can deliver it.
   */
  notice?: boolean;
  /** Buttons under the text, where the platform has them. */
  actions?: ReplyAction[];
  /**
   * For the sender alone (a native command's error or owner-only output): shown only to them
   * where the platform can (Slack ephemeral, Discord ephemeral follow-up).
   */
  senderOnly?: boolean;
  /**
   * Written by the gateway and not kept in the session's transcript: `command`, a chat command's
   * answer (plain text, shown as typed rather than as Markdown); `approval`, an approval request or
   * its outcome. A chat that shows its own history (the web chat) keeps these itself.
   */
  origin?: 'command' | 'approval';
}

/** A file sent to a chat (the `chat.attach` tool): its bytes, its name there, an optional comment. */
export interface OutboundFile {
  name: string;
  bytes: Uint8Array;
  comment?: string;
}

/** Part of a reply still being written; adapters without streaming ignore these. */
export interface OutboundDelta {
  id: string;
  delta: string;
}

/** How a turn ended. A run's status is this or `running`. */
export type TurnStatus = 'done' | 'error' | 'killed' | 'timeout' | 'interrupted';

/** What happened to an inbound message: the session it went to and the replies of its turn. */
export interface DispatchResult {
  sessionKey: string;
  replies: OutboundMessage[];
  /** How the turn that answered ended, and its run (absent for chat commands). */
  status?: TurnStatus;
  runId?: string;
}

/**
 * What a dispatcher learns before the turn ends. `accepted` is called once the gateway has taken the
 * message for good: stored in the inbox (durable: it is answered even if the process dies now),
 * or, for a chat command, taken to be run. Only then may the platform be told the message arrived
 * (Slack's ack); the returned promise still resolves when the turn ends. `accepted` is never called
 * when dispatch rejects before the message was stored.
 */
export interface DispatchOptions {
  accepted?(): void;
  /**
   * The platform delivers this message again (Slack's retry): the process that got it first may
   * have stored it and died before it could say so, so a message already waiting in the inbox or
   * in its session's recent transcript (same message id) is accepted without being stored again.
   */
  redelivery?: boolean;
}

/** Takes an inbound message (the router's `dispatch`); resolves when its turn ends. */
export type InboundHandler = (message: InboundMessage, options?: DispatchOptions) => Promise<DispatchResult>;
