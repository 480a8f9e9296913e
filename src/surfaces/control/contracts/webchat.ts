// The web chat: history, threads and a person's linked Slack/Discord chats. Contracts: see ../contracts.ts.
import { type Static, Type } from '@sinclair/typebox';
import { QueueStatus } from './sessions.js';

/**
 * One message of a web chat history: what the user typed, what the agent answered, a note of the
 * gateway (`system`: a restart note), or what the web chat journal kept (`origin`: a typed command
 * and its answer, an approval request with its buttons while open, or the decision that replaced them).
 */
export const WebchatHistoryMessage = Type.Object({
  /** The transcript entry's seq; absent for a journal entry. */
  seq: Type.Optional(Type.Number()),
  /** A journal entry's id (a reply's id: a click on its buttons names it). */
  id: Type.Optional(Type.String()),
  at: Type.String(),
  role: Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('system')]),
  text: Type.String(),
  /** Kept by the web chat, not in the transcript: `command` is plain text, `approval` Markdown. */
  origin: Type.Optional(Type.Union([Type.Literal('command'), Type.Literal('approval')])),
  actions: Type.Optional(
    Type.Array(
      Type.Object({
        label: Type.String(),
        value: Type.String(),
        style: Type.Optional(Type.Union([Type.Literal('primary'), Type.Literal('danger')])),
      }),
    ),
  ),
  decision: Type.Optional(Type.String()),
});
export type WebchatHistoryMessage = Static<typeof WebchatHistoryMessage>;

/** `GET /api/webchat/history?thread&before&last`: a page of a thread's messages, oldest first. */
export const WebchatHistoryPage = Type.Object({
  /** The thread asked for; absent for the main chat. */
  thread: Type.Optional(Type.String()),
  sessionKey: Type.String(),
  status: QueueStatus,
  messages: Type.Array(WebchatHistoryMessage),
  /** The `before` of the page further back; absent at the start. */
  next: Type.Optional(Type.Number()),
});
export type WebchatHistoryPage = Static<typeof WebchatHistoryPage>;

/** One of the user's web chat threads: `thread` absent for the main chat. */
export const WebchatThreadView = Type.Object({
  thread: Type.Optional(Type.String()),
  /** The first words of the thread's first message; absent for the main chat. */
  title: Type.Optional(Type.String()),
  sessionKey: Type.String(),
  lastActivityAt: Type.String(),
  /** Transcript entries (every role), for a rough size. */
  transcriptLength: Type.Number(),
  status: QueueStatus,
});
export type WebchatThreadView = Static<typeof WebchatThreadView>;

/** `GET /api/webchat/threads`: the signed-in user's threads, most recently active first. */
export const WebchatThreadList = Type.Object({
  user: Type.String(),
  threads: Type.Array(WebchatThreadView),
});
export type WebchatThreadList = Static<typeof WebchatThreadList>;

/**
 * A linked session: a Slack or Discord direct chat of the signed-in person (one of their linked
 * identities), which their web chat lists beside its threads, reads and continues.
 */
export const LinkedSessionView = Type.Object({
  sessionKey: Type.String(),
  platform: Type.Union([Type.Literal('slack'), Type.Literal('discord')]),
  /** The person's identity the chat is with (`slack:U0123`). */
  identity: Type.String(),
  /**
   * As the Sessions page titles it: the account's name the platform gave (when the channel stored
   * one) and the first words of the chat's first message (`Ann — is the api up?`).
   */
  title: Type.Optional(Type.String()),
  agentId: Type.String(),
  lastActivityAt: Type.String(),
  transcriptLength: Type.Number(),
  status: QueueStatus,
});
export type LinkedSessionView = Static<typeof LinkedSessionView>;

/** `GET /api/webchat/linked`: the signed-in person's linked sessions, most recently active first. */
export const LinkedSessionList = Type.Object({ sessions: Type.Array(LinkedSessionView) });
export type LinkedSessionList = Static<typeof LinkedSessionList>;
