// Sessions pages: the list, a transcript, its live stream and the sub-agent tree. Contracts: see ../contracts.ts.
import { type Static, Type } from '@sinclair/typebox';

/** A session's queue status (the router's `QueueStatus`). */
export const QueueStatus = Type.Union([
  Type.Literal('idle'),
  Type.Literal('queued'),
  Type.Literal('running'),
]);
export type QueueStatus = Static<typeof QueueStatus>;

/** One session in the sessions list and in the events stream. */
export const SessionSummary = Type.Object({
  key: Type.String(),
  agentId: Type.String(),
  channel: Type.String(),
  chatType: Type.String(),
  status: QueueStatus,
  transcriptLength: Type.Number(),
  createdAt: Type.String(),
  lastActivityAt: Type.String(),
  /** Changes on `/new`; the transcript belongs to it. */
  sessionId: Type.String(),
  /**
   * A name people read: the chat's name on its platform (`#ops`, a direct message's person) and the
   * first words of the session's first message, `#ops — deploy failed on…`; absent while neither is
   * known (the page shows the key). The list and the transcript answer it; the events stream does not.
   */
  title: Type.Optional(Type.String()),
});
export type SessionSummary = Static<typeof SessionSummary>;

/** `GET /api/sessions`: a page of sessions and the cursor of the next. */
export const SessionPage = Type.Object({
  sessions: Type.Array(SessionSummary),
  next: Type.Optional(Type.String()),
});
export type SessionPage = Static<typeof SessionPage>;

/** A tool call as the model wrote it (the raw JSON text of its arguments). */
export const TranscriptToolCall = Type.Object({
  id: Type.String(),
  name: Type.String(),
  arguments: Type.String(),
});
export type TranscriptToolCall = Static<typeof TranscriptToolCall>;

/** One transcript entry, as the pages read it (the server sends the stored entry, scrubbed). */
export const TranscriptEntry = Type.Object({
  seq: Type.Number(),
  at: Type.String(),
  role: Type.Union([
    Type.Literal('user'),
    Type.Literal('assistant'),
    Type.Literal('tool'),
    Type.Literal('system'),
  ]),
  text: Type.String(),
  senderId: Type.Optional(Type.String()),
  toolCalls: Type.Optional(Type.Array(TranscriptToolCall)),
  toolCallId: Type.Optional(Type.String()),
  toolName: Type.Optional(Type.String()),
  isError: Type.Optional(Type.Boolean()),
  /** A compaction: this system entry's text is a summary the model sees instead of entries fromSeq–toSeq. */
  compaction: Type.Optional(
    Type.Object({ fromSeq: Type.Number(), toSeq: Type.Number(), entries: Type.Number() }),
  ),
});
export type TranscriptEntry = Static<typeof TranscriptEntry>;

/** `GET /api/sessions/:key/transcript`: a page of entries, with the summary on the first. */
export const TranscriptPage = Type.Object({
  key: Type.String(),
  sessionId: Type.String(),
  summary: Type.Optional(SessionSummary),
  entries: Type.Array(TranscriptEntry),
  /** The `before` of the page further back; absent on the first page. */
  next: Type.Optional(Type.Number()),
  /** The display names the platforms gave of this page's senders, by sender id (`slack:U1` → `Ann`). */
  names: Type.Optional(Type.Record(Type.String(), Type.String())),
});
export type TranscriptPage = Static<typeof TranscriptPage>;

/** `GET /api/events`: the stream's two kinds (`ready` aside). */
export const SessionStreamEvent = Type.Union([
  Type.Object({ type: Type.Literal('session'), summary: SessionSummary }),
  Type.Object({ type: Type.Literal('entry'), key: Type.String(), entry: TranscriptEntry }),
]);
export type SessionStreamEvent = Static<typeof SessionStreamEvent>;

/** `GET /api/sessions/:key/subagents/tree`: a child as its latest run, its own children nested. */
export const SubagentNode = Type.Recursive((Node) =>
  Type.Object({
    /** The number a target names among its parent's children (it changes as runs start and end). */
    index: Type.Number(),
    runId: Type.String(),
    label: Type.String(),
    status: Type.String(),
    startedAt: Type.Number(),
    runtimeMs: Type.Number(),
    agentId: Type.String(),
    /** `models.<name>` the child uses. */
    model: Type.String(),
    childSessionKey: Type.String(),
    /** The session that spawned it: kill and steer it there. */
    parentSessionKey: Type.String(),
    children: Type.Array(Node),
  }),
);
export type SubagentNode = Static<typeof SubagentNode>;
