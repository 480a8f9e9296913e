// The control plane's HTTP contracts: one TypeBox schema per route answer, the one declaration of
// each shape. The server's routes answer `Static<typeof X>`; the control UI (`web/`) imports these
// types only (`import type`), so a change to a shape fails the side that disagrees at compile
// time (`test/unit/control-contracts.test.ts`). Dependency-free: it imports TypeBox and nothing else.
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

/** `GET /api/approvals`: one request, waiting or decided. */
export const ApprovalView = Type.Object({
  id: Type.String(),
  /** What a person types: `/approve K7Q2XD`. */
  code: Type.String(),
  kind: Type.Union([Type.Literal('tool'), Type.Literal('command')]),
  tool: Type.String(),
  agentId: Type.String(),
  sessionKey: Type.String(),
  requester: Type.String(),
  arguments: Type.String(),
  details: Type.Optional(Type.String()),
  approvers: Type.Array(Type.String()),
  createdAt: Type.String(),
  expiresAt: Type.String(),
  status: Type.Union([
    Type.Literal('pending'),
    Type.Literal('approved'),
    Type.Literal('used'),
    Type.Literal('denied'),
    Type.Literal('expired'),
  ]),
  decidedBy: Type.Optional(Type.String()),
  decidedAt: Type.Optional(Type.String()),
  reason: Type.Optional(Type.String()),
});
export type ApprovalView = Static<typeof ApprovalView>;

/** A chat channel as the supervisor sees it; `reason` (scrubbed) says why it is not connected. */
export const ChannelStatus = Type.Object({
  name: Type.String(),
  /** `connected`, `connecting`, `retrying`, `refused` or `deaf`. */
  state: Type.String(),
  reason: Type.Optional(Type.String()),
  /** Failed attempts since it last connected. */
  attempts: Type.Number(),
  /** When the state last changed (ISO time). */
  since: Type.Optional(Type.String()),
  /** How often its connection was found deaf (open, hearing nothing) and opened again. */
  deafReconnects: Type.Optional(Type.Number()),
  /** The last time, and why (scrubbed). */
  lastDeaf: Type.Optional(Type.Object({ at: Type.String(), reason: Type.String() })),
});
export type ChannelStatus = Static<typeof ChannelStatus>;

/** A configured model and the outcome of its last call in this process (no call yet: none). */
export const ModelStatus = Type.Object({
  name: Type.String(),
  /** The provider's own line (`openai gpt-4o-mini at http://…`), scrubbed. */
  description: Type.String(),
  lastCall: Type.Optional(
    Type.Object({
      at: Type.String(),
      ok: Type.Boolean(),
      ms: Type.Number(),
      error: Type.Optional(Type.String()),
    }),
  ),
  /** Skipped by every model chain until then (ISO time): it answered 429 with a `retry-after`. */
  cooldownUntil: Type.Optional(Type.String()),
});
export type ModelStatus = Static<typeof ModelStatus>;

/** The last time a fallback answered in place of an agent's first model (texts scrubbed). */
export const FailoverView = Type.Object({
  at: Type.String(),
  agentId: Type.String(),
  from: Type.String(),
  to: Type.String(),
  why: Type.String(),
});
export type FailoverView = Static<typeof FailoverView>;

/** One agent on the health page: its model chain and its risk summary (the union of its tools' classes). */
export const AgentRiskStatus = Type.Object({
  id: Type.String(),
  /** `a → b`, or `(no model)`. */
  models: Type.String(),
  /** Every class its tools carry, in the order of `RISK_CLASSES`. */
  risk: Type.Array(Type.String()),
  /** Those of them only owner-only tools carry. */
  ownerOnly: Type.Array(Type.String()),
  /** Tools its allowlist names that are hidden for a missing prerequisite, with why. */
  unavailable: Type.Array(Type.Object({ name: Type.String(), reason: Type.String() })),
});
export type AgentRiskStatus = Static<typeof AgentRiskStatus>;

/** An MCP server as the health page shows it. */
export const McpServerView = Type.Object({
  name: Type.String(),
  transport: Type.Union([Type.Literal('stdio'), Type.Literal('http')]),
  state: Type.String(),
  tools: Type.Number(),
  failures: Type.Number(),
  error: Type.Optional(Type.String()),
  pid: Type.Optional(Type.Number()),
});
export type McpServerView = Static<typeof McpServerView>;

/** `GET /api/status`: the operator's health page. Nothing here may hold a secret. */
export const StatusView = Type.Object({
  version: Type.String(),
  /** When the process started (ISO time); uptime counts from it, across in-process restarts. */
  startedAt: Type.String(),
  uptimeSeconds: Type.Number(),
  channels: Type.Array(ChannelStatus),
  store: Type.Object({
    driver: Type.String(),
    location: Type.String(),
    reachable: Type.Boolean(),
    error: Type.Optional(Type.String()),
  }),
  models: Type.Array(ModelStatus),
  /** Each configured MCP server: its state, tool count, failed attempts and last error (scrubbed). */
  mcpServers: Type.Optional(Type.Array(McpServerView)),
  /** The last model failover since the gateway started, if any. */
  lastFailover: Type.Optional(FailoverView),
  /** This process's starts and in-process restarts, newest first. */
  restarts: Type.Array(Type.Object({ at: Type.String(), reason: Type.String() })),
  /** The latest config changes from the audit log (each one restarts the gateway), newest first. */
  configChanges: Type.Array(
    Type.Object({
      number: Type.Number(),
      ts: Type.String(),
      actor: Type.String(),
      action: Type.String(),
      changedPaths: Type.Array(Type.String()),
      note: Type.Optional(Type.String()),
    }),
  ),
  /** Each configured agent's risk summary. */
  agents: Type.Array(AgentRiskStatus),
});
export type StatusView = Static<typeof StatusView>;

/** Log levels as the Logs page filters them, least severe first. */
export const LogLevelName = Type.Union([
  Type.Literal('trace'),
  Type.Literal('debug'),
  Type.Literal('info'),
  Type.Literal('warn'),
  Type.Literal('error'),
  Type.Literal('fatal'),
]);
export type LogLevelName = Static<typeof LogLevelName>;

/** One line of the gateway's log, secrets scrubbed as in the log file. */
export const LogLineView = Type.Object({
  /** Its number since the process started: `?after=` of the newest one asks for what follows. */
  seq: Type.Number(),
  /** ISO time (UTC). */
  time: Type.String(),
  level: LogLevelName,
  /** The part of the gateway that wrote it (`router`, `http`, …), when it says. */
  component: Type.Optional(Type.String()),
  /** The line as `switchboard logs` prints it: time, level, component, message, fields, stack. */
  text: Type.String(),
});
export type LogLineView = Static<typeof LogLineView>;

/** `GET /api/logs?after&level&q`: the matching lines newer than `after`, oldest first. */
export const LogPage = Type.Object({
  lines: Type.Array(LogLineView),
  /** The newest line's number (matching or not): the next `after`. */
  next: Type.Number(),
  /** How many lines the gateway keeps for this page (the newest ones). */
  kept: Type.Number(),
});
export type LogPage = Static<typeof LogPage>;
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

/** The control UI's pages (`roles.<name>.pages` names them). */
export const PageName = Type.Union([
  Type.Literal('chat'),
  Type.Literal('sessions'),
  Type.Literal('session'),
  Type.Literal('approvals'),
  Type.Literal('tools'),
  Type.Literal('schedules'),
  Type.Literal('logs'),
  Type.Literal('config'),
  Type.Literal('health'),
  Type.Literal('people'),
  Type.Literal('setup'),
]);
export type PageName = Static<typeof PageName>;

/** `GET /api/me`: who the sign-in is and what the control UI offers them. */
export const Me = Type.Object({
  /** The web chat user: its sender id is `webchat:<user>`. */
  user: Type.String(),
  senderId: Type.String(),
  /** Signed in with the gateway's own token: owner-equivalent on every route. */
  operator: Type.Boolean(),
  /** In `owners` (or the operator): may see every session, the config, health and the tools. */
  owner: Type.Boolean(),
  /** The role (docs/roles.md): `owner`, `operator`, `member`, `viewer` or a configured one. */
  role: Type.String(),
  /** The person (a key of `people`); absent for a sender no person lists. */
  person: Type.Optional(Type.String()),
  /** The control-UI pages the role shows (`roles.<name>.pages`). */
  pages: Type.Array(PageName),
  /** May decide approvals (in `approvals.approvers`, or an owner). */
  approver: Type.Boolean(),
  /** The project id (`project.id`), for the Tools API. */
  projectId: Type.String(),
  version: Type.String(),
  /** The most characters one chat message may hold. */
  maxMessageLength: Type.Number(),
  /** No model answers yet (the default agent has none): an owner's control UI opens on Setup. */
  setupNeeded: Type.Boolean(),
});
export type Me = Static<typeof Me>;

// The Tools page: the project's WebUI entries, the roster, per-tool status (all under
// `/api/projects/<project>/`) and the toolpacks report (`/api/toolpacks`).

/** One toolpack WebUI entry: every key present, what the manifest leaves out is null. */
export const WebuiEntryView = Type.Object({
  /** The id of the toolpack that declares the entry. */
  toolpack: Type.String(),
  id: Type.String(),
  title: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  kind: Type.Union([Type.Literal('panel'), Type.Literal('action')]),
  /** A JSON Schema with `type: "object"` at the top; a run's input is validated against it. */
  inputSchema: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  submitLabel: Type.Union([Type.String(), Type.Null()]),
});
export type WebuiEntryView = Static<typeof WebuiEntryView>;

/** `GET /api/projects/:project/tool-ui`. */
export const WebuiEntriesView = Type.Object({ project: Type.String(), entries: Type.Array(WebuiEntryView) });
export type WebuiEntriesView = Static<typeof WebuiEntriesView>;

/** `POST /api/projects/:project/tool-ui/:toolpack/:entry`: what the handler answered. */
export const WebuiAnswer = Type.Object({
  /** Text (shown as Markdown) or any JSON. */
  output: Type.Unknown(),
  title: Type.Optional(Type.String()),
  /** `metrics` (`[{ label, value, description? }]`) is shown as cards. */
  metadata: Type.Optional(Type.Unknown()),
});
export type WebuiAnswer = Static<typeof WebuiAnswer>;

/** An agent offered in the Tools page's `sender`, `recipient`, … dropdowns. */
export const RosterAgentView = Type.Object({ id: Type.String(), displayName: Type.String() });
export type RosterAgentView = Static<typeof RosterAgentView>;

/** `GET /api/projects/:project/roster`. */
export const RosterView = Type.Object({ agents: Type.Array(RosterAgentView) });
export type RosterView = Static<typeof RosterView>;

const CallStatus = Type.Union([Type.Literal('running'), Type.Literal('completed'), Type.Literal('failed')]);

/** One tool's status, as Suzumio's Tools panel shows it (`listToolStatus`'s shape). */
export const ToolStatusView = Type.Object({
  tool: Type.String(),
  source: Type.String(),
  toolpackId: Type.Optional(Type.String()),
  toolpackKind: Type.Optional(Type.Union([Type.Literal('builtin'), Type.Literal('local')])),
  description: Type.String(),
  enabledForAgents: Type.Array(Type.String()),
  callCount: Type.Number(),
  runningCount: Type.Number(),
  completedCount: Type.Number(),
  failedCount: Type.Number(),
  lastStatus: Type.Optional(CallStatus),
  lastAgentId: Type.Optional(Type.String()),
  lastAt: Type.Optional(Type.String()),
  lastError: Type.Optional(Type.String()),
  submittedReportPath: Type.Optional(Type.String()),
});
export type ToolStatusView = Static<typeof ToolStatusView>;

/** `GET /api/projects/:project/tool-status`. */
export const ToolStatusPage = Type.Object({ project: Type.String(), tools: Type.Array(ToolStatusView) });
export type ToolStatusPage = Static<typeof ToolStatusPage>;

/** One controller's scheduler hook: ok, or failing with its last error and backoff. */
export const SchedulerHookView = Type.Object({
  toolpackId: Type.String(),
  status: Type.Union([Type.Literal('ok'), Type.Literal('failing')]),
  /** Failures in a row (0 when the last run succeeded). */
  failures: Type.Number(),
  /** The last error's message, while failing (scrubbed like the log). */
  error: Type.Optional(Type.String()),
  /** When the current run of failures began (ISO time). */
  since: Type.Optional(Type.String()),
  /** The wait before the next attempt. */
  backoffMs: Type.Optional(Type.Number()),
  /** When the next attempt runs (ISO time), while failing. */
  nextAttemptAt: Type.Optional(Type.String()),
});
export type SchedulerHookView = Static<typeof SchedulerHookView>;

/** `GET /api/toolpacks`: what loaded, why the others were skipped, each scheduler hook's health. */
export const ToolpackReport = Type.Object({
  toolpacks: Type.Array(
    Type.Object({
      id: Type.String(),
      directory: Type.String(),
      tools: Type.Array(Type.String()),
      webui: Type.Array(Type.String()),
      /** Suzumio-internal APIs the controller read that are not provided (`store.db`). */
      notProvided: Type.Optional(Type.Array(Type.String())),
    }),
  ),
  builtins: Type.Array(Type.String()),
  problems: Type.Array(
    Type.Object({
      file: Type.String(),
      rule: Type.String(),
      message: Type.String(),
      pointer: Type.Optional(Type.String()),
    }),
  ),
  schedulerHooks: Type.Array(SchedulerHookView),
});
export type ToolpackReport = Static<typeof ToolpackReport>;

// The config page (`/api/config…`).

/** `GET /api/config`: the file redacted and its hash; a file that does not load: its errors and a note. */
export const ConfigFileView = Type.Object({
  path: Type.String(),
  hash: Type.String(),
  config: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  valid: Type.Optional(Type.Literal(false)),
  errors: Type.Optional(Type.Array(Type.String())),
  note: Type.Optional(Type.String()),
});
export type ConfigFileView = Static<typeof ConfigFileView>;

const Hash = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'The hash the edit was made from.' });
const EditNote = Type.Optional(
  Type.String({ minLength: 1, maxLength: 500, description: 'Why: kept in the audit log and the note.' }),
);

/** `POST /api/config/preview` and `POST /api/config`: an edit (the route validates the body with it). */
export const ConfigEditBody = Type.Object(
  {
    action: Type.Union([Type.Literal('patch'), Type.Literal('apply')], {
      description: '`patch`: a JSON merge patch; `apply`: the whole new config.',
    }),
    raw: Type.String({ minLength: 1, maxLength: 512 * 1024, description: 'JSON or JSONC text.' }),
    baseHash: Hash,
    note: EditNote,
    allowOperatorLockout: Type.Optional(
      Type.Boolean({
        description:
          'The edit leaves webchat:local (the operator, the HTTP token) out of owners on purpose; without it such an edit is refused.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ConfigEditBody = Static<typeof ConfigEditBody>;

/** `POST /api/config/history/:number/undo`. */
export const ConfigUndoBody = Type.Object(
  { baseHash: Hash, note: EditNote },
  { additionalProperties: false },
);
export type ConfigUndoBody = Static<typeof ConfigUndoBody>;

/** `POST /api/config/preview`: what the edit would do, checked but not written. */
export const ConfigPreviewView = Type.Union([
  Type.Object({ changed: Type.Literal(false), hash: Type.String() }),
  Type.Object({
    changed: Type.Literal(true),
    previousHash: Type.String(),
    changedPaths: Type.Array(Type.String()),
    removedPaths: Type.Array(Type.String()),
    diff: Type.String(),
  }),
]);
export type ConfigPreviewView = Static<typeof ConfigPreviewView>;

/** What an edit or an undo did: written or not, and the restart it scheduled (or why none). */
export const ConfigEditOutcomeView = Type.Object({
  changed: Type.Boolean(),
  changedPaths: Type.Optional(Type.Array(Type.String())),
  restart: Type.Optional(
    Type.Object({
      status: Type.Optional(Type.Literal('scheduled')),
      delayMs: Type.Optional(Type.Number()),
      scheduled: Type.Optional(Type.Literal(false)),
      reason: Type.Optional(Type.String()),
    }),
  ),
  restartNeeded: Type.Optional(Type.Literal(true)),
});
export type ConfigEditOutcomeView = Static<typeof ConfigEditOutcomeView>;

/** `POST /api/config` and `…/undo`: the outcome, and where the restart note will be. */
export const ConfigEditAnswer = Type.Object({
  outcome: ConfigEditOutcomeView,
  /** The note is a system entry of this session after `since`. */
  note: Type.Object({ sessionKey: Type.String(), since: Type.String() }),
});
export type ConfigEditAnswer = Static<typeof ConfigEditAnswer>;

/** A change the audit log records, numbered by its line (1 is the oldest). */
export const ConfigChange = Type.Object({
  number: Type.Number(),
  ts: Type.String(),
  actor: Type.String(),
  via: Type.Union([Type.Literal('tool'), Type.Literal('command'), Type.Literal('cli')]),
  action: Type.Union([
    Type.Literal('config.patch'),
    Type.Literal('config.apply'),
    Type.Literal('config.undo'),
  ]),
  changedPaths: Type.Array(Type.String()),
  previousHash: Type.String(),
  hash: Type.String(),
  note: Type.Optional(Type.String()),
  /** `config.undo`: the number of the change whose previous text was written back. */
  undoes: Type.Optional(Type.Number()),
});
export type ConfigChange = Static<typeof ConfigChange>;

/** `GET /api/config/history`: oldest first. */
export const ConfigHistoryView = Type.Object({ changes: Type.Array(ConfigChange) });
export type ConfigHistoryView = Static<typeof ConfigHistoryView>;

/** `GET /api/config/history/:number`: the change and its diff ('' when the file after it is gone). */
export const ConfigChangeView = Type.Object({ change: ConfigChange, diff: Type.String() });
export type ConfigChangeView = Static<typeof ConfigChangeView>;

/** One person of `people`: their role and linked platform identities (the People page). */
export const PersonView = Type.Object({
  id: Type.String(),
  role: Type.String(),
  displayName: Type.Optional(Type.String()),
  identities: Type.Array(Type.String()),
});
export type PersonView = Static<typeof PersonView>;

/** A pairing request waiting for an owner: the code the unknown sender was given, and who they are. */
export const PairingRequestView = Type.Object({
  /** As the sender was shown it (`ABCD-EFGH`). */
  code: Type.String(),
  identity: Type.String(),
  requestedAt: Type.String(),
  expiresAt: Type.String(),
});
export type PairingRequestView = Static<typeof PairingRequestView>;

/** `GET /api/people`: the people of the running config and the pairing requests waiting. */
export const PeopleView = Type.Object({
  people: Type.Array(PersonView),
  pairing: Type.Array(PairingRequestView),
  /** The roles a person may be given: the built-in ones and those `roles` configures. */
  roles: Type.Array(Type.String()),
});
export type PeopleView = Static<typeof PeopleView>;

/** A People page action's answer (an unlink, a pairing decision): what it did, in words. */
export const PeopleActionAnswer = Type.Object({ text: Type.String() });
export type PeopleActionAnswer = Static<typeof PeopleActionAnswer>;

// The Setup page (the first run, `switchboard setup`'s steps): `GET` and `POST /api/config/setup`.

/** A model the first run offers, with what it would write. */
export const SetupModelKind = Type.Object({
  kind: Type.Union([Type.Literal('openai'), Type.Literal('anthropic'), Type.Literal('compatible')]),
  label: Type.String(),
  /** The model id offered. */
  model: Type.String(),
  /** The env file variable its key goes to. */
  variable: Type.String(),
  /** The address offered (an OpenAI-compatible server's). */
  baseUrl: Type.Optional(Type.String()),
});
export type SetupModelKind = Static<typeof SetupModelKind>;

/** `GET /api/config/setup`: what is configured and what each step needs; never a secret's value. */
export const SetupView = Type.Object({
  /** The config file's hash: the base of the setup's edit. */
  hash: Type.String(),
  /** The default agent has a model. */
  modelConfigured: Type.Boolean(),
  /** The configured models, one line each (`default: openai gpt-4o-mini at …`). */
  models: Type.Array(Type.Object({ name: Type.String(), text: Type.String() })),
  modelKinds: Type.Array(SetupModelKind),
  /** Slack's app manifest (Socket Mode) as YAML, to create the app from. */
  slack: Type.Object({ configured: Type.Boolean(), manifest: Type.String() }),
  discord: Type.Object({ configured: Type.Boolean() }),
  /** `owners` as the file has them (the operator first). */
  owners: Type.Array(Type.String()),
  /** The operator's sender id (`webchat:local`), always kept an owner. */
  operator: Type.String(),
  /** Where the secrets are written (mode 0600). */
  envFile: Type.String(),
  /** The setup's variables already set (in the env file or the process's environment): an empty field keeps them. */
  secretsSet: Type.Array(Type.String()),
});
export type SetupView = Static<typeof SetupView>;

const Secret = (description: string) =>
  Type.Optional(Type.String({ maxLength: 4096, description: `${description}; empty keeps the one set.` }));
const Address = (description: string) => Type.Optional(Type.String({ maxLength: 2048, description }));

/** `POST /api/config/setup`: the steps' answers; the secrets are proved, written to the env file, never answered. */
export const SetupBody = Type.Object(
  {
    baseHash: Hash,
    model: Type.Union([
      Type.Object({ kind: Type.Literal('keep') }, { additionalProperties: false }),
      Type.Object(
        {
          kind: Type.Union([Type.Literal('openai'), Type.Literal('anthropic'), Type.Literal('compatible')]),
          model: Type.String({ maxLength: 200, description: 'The model id; empty for the one offered.' }),
          baseUrl: Address("An OpenAI-compatible server's base URL (`http://127.0.0.1:11434/v1`)."),
          apiKey: Secret('The API key'),
        },
        { additionalProperties: false },
      ),
    ]),
    slack: Type.Optional(
      Type.Object(
        {
          botToken: Secret('The bot token (xoxb-…)'),
          appToken: Secret('The app-level token (xapp-…, connections:write)'),
          apiUrl: Address('Another Slack Web API address; empty for slack.com.'),
        },
        { additionalProperties: false },
      ),
    ),
    discord: Type.Optional(
      Type.Object(
        {
          token: Secret('The bot token'),
          apiBase: Address('Another Discord API address; empty for discord.com.'),
        },
        { additionalProperties: false },
      ),
    ),
    /** The other owners by sender id; the operator is kept whatever this says. */
    owners: Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100 }),
  },
  { additionalProperties: false },
);
export type SetupBody = Static<typeof SetupBody>;

/** What a setup did: each proof's words, the variables written (names only), the edit and its restart. */
export const SetupAnswer = Type.Object({
  proofs: Type.Array(
    Type.Object({
      step: Type.Union([Type.Literal('model'), Type.Literal('slack'), Type.Literal('discord')]),
      text: Type.String(),
    }),
  ),
  written: Type.Array(Type.String()),
  envFile: Type.String(),
  changedPaths: Type.Array(Type.String()),
  /** Discord: where to invite the bot. */
  invite: Type.Optional(Type.String()),
  restart: ConfigEditOutcomeView.properties.restart,
  restartNeeded: Type.Optional(Type.Literal(true)),
  /** The restart note is a system entry of this session after `since`. */
  note: Type.Object({ sessionKey: Type.String(), since: Type.String() }),
});
export type SetupAnswer = Static<typeof SetupAnswer>;
