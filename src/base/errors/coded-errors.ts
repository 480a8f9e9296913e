/** Config files: reading, parsing, validating, the start check. */
type ConfigCode =
  | 'CONFIG_INVALID'
  | 'CONFIG_PARSE'
  | 'CONFIG_READ'
  | 'CONFIG_ENV_MISSING'
  | 'CONFIG_UNSTARTABLE'
  /** A config file, its lock, backup or audit log could not be read or written (FileSystemError). */
  | 'CONFIG_FILE_SYSTEM'
  /** jsonc-parser's edit of the text does not hold the requested config (duplicate keys). */
  | 'CONFIG_EDIT_MISMATCH';

/** The store (SQLite, Redis). */
type StoreCode =
  | 'STORE_URL_INVALID'
  | 'STORE_UNAVAILABLE'
  /** `page()` or `touch()` on a namespace opened without an index, or two different indexes for one name. */
  | 'STORE_NOT_INDEXED'
  /** A write could not be committed (disk full, the file locked by another process); nothing of its batch was kept. */
  | 'STORE_WRITE_FAILED'
  /** The SQLite file's layout could not be migrated (the backup beside it is untouched). */
  | 'STORE_MIGRATION_FAILED';

/** The composition root and its lifecycle. */
type GatewayCode =
  | 'GATEWAY_STATE'
  /** A reply or post for a platform no adapter of this gateway serves. */
  | 'GATEWAY_NO_CHANNEL'
  /** The restart sentinel file is neither version 1 nor 2 (its notes are dropped, with a warning). */
  | 'GATEWAY_SENTINEL_MALFORMED'
  /** A workspace path that leaves the workspace (a posted file's, `chat.attach`'s). */
  | 'GATEWAY_FILE_PATH';

/** The tool registry. */
type ToolCode = 'TOOL_DUPLICATE' | 'TOOL_INVALID';

/** Toolpacks: loading, runner and controller processes. */
type ToolpackCode =
  /** A controller module could not be imported. */
  | 'TOOLPACK_CONTROLLER_LOAD'
  /** A controller handler, factory or scheduler hook threw; the original is the cause. */
  | 'TOOLPACK_HANDLER_FAILED'
  /** A call named a tool or WebUI entry the manifest does not declare. */
  | 'TOOLPACK_UNDECLARED'
  /** The controller module exports no factory, or no handler for a declared WebUI entry. */
  | 'TOOLPACK_NO_HANDLER'
  /** A WebUI handler refused its input (ToolpackInputError: the caller's mistake, 4xx). */
  | 'TOOLPACK_INPUT_REFUSED'
  /** `store.sendMessage` named a recipient or channel that does not exist. */
  | 'TOOLPACK_MESSAGE_TARGET'
  /** A toolpack called its store (`sendMessage`, `kv`) with invalid arguments; the message names the field. */
  | 'TOOLPACK_CALL_INVALID'
  /** The runner's file grants cannot be expressed on this Node release. */
  | 'TOOLPACK_RUNNER_GRANT'
  /** A runner's callSupport or recordSignal failed a check (activation, toolpack, allowlist). */
  | 'TOOLPACK_REFUSED'
  /** A toolpack tool's handler failed in its runner. */
  | 'TOOLPACK_TOOL_FAILED'
  /** A call names a toolpack without a controller (none loaded by that id). */
  | 'TOOLPACK_UNKNOWN'
  /** `store.db` was asked to write, or about a table Switchboard does not keep (docs/toolpack-store.md). */
  | 'TOOLPACK_STORE_DB';

/** Channel adapters (web chat, Slack, Discord). */
type ChannelCode =
  /** A platform's config lacks what its mode needs (Slack's signing secret or app token). */
  | 'CHANNEL_MISCONFIGURED'
  /** A send while the adapter is not connected (before `start` or after `stop`). */
  | 'CHANNEL_NOT_CONNECTED'
  /** The adapter stopped while an event was being taken in. */
  | 'CHANNEL_STOPPED'
  /** The platform connection closed for good; the supervisor starts the adapter again. */
  | 'CHANNEL_CONNECTION_LOST'
  /** The connection is open and hears nothing while the platform shows messages: opened again. */
  | 'CHANNEL_DEAF'
  /** A platform API answered without what it must contain. */
  | 'CHANNEL_UNEXPECTED_ANSWER'
  /** A Slack event whose message could not be stored: not acknowledged, so Slack delivers it again. */
  | 'CHANNEL_EVENT_NOT_STORED'
  /** `splitMessage` was given a limit too small for a fence opener and some text: a bug in the caller. */
  | 'CHANNEL_SPLIT_LIMIT'
  /** A posted file was not saved: too large, or the platform refused it (a missing scope, a sign-in page). */
  | 'CHANNEL_FILE_REFUSED';

/**
 * Agents: model calls and turns. MODEL_CALL_FAILED: a model call failed for good (after retries);
 * MODEL_ANSWER_STALLED: an answer stopped arriving mid-stream (never retried: part may be shown);
 * TURN_ABORTED: the reason a turn's signal is aborted with (killed or interrupted);
 * TURN_TIMEOUT: the reason a run is aborted with when it exceeds its time limit;
 * AGENT_NO_PROVIDER: an agent's model has no provider (config validation should have caught it).
 */
type AgentCode =
  | 'MODEL_CALL_FAILED'
  | 'MODEL_ANSWER_STALLED'
  | 'TURN_ABORTED'
  | 'TURN_TIMEOUT'
  | 'AGENT_NO_PROVIDER';

/** Routing, sessions, sub-agents and signals. */
type SessionCode =
  /** A session used before it was created (`SessionStore.append` before `ensure`): a bug. */
  | 'SESSION_UNKNOWN'
  /** A signal or message names a route `routes` in config does not have. */
  | 'SIGNAL_ROUTE_UNKNOWN';

/**
 * The catalog of coded errors. These are for bugs and misconfiguration; expected
 * failures (a refused command, an unknown session) are returned as results instead.
 * Every error class the gateway throws extends `SwitchboardError` with one of these codes.
 */
export type ErrorCode =
  | ConfigCode
  | StoreCode
  | GatewayCode
  | ToolCode
  | ToolpackCode
  | ChannelCode
  | AgentCode
  | SessionCode;

export class SwitchboardError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SwitchboardError';
    this.code = code;
  }
}

/** One problem in a config file, located by file and JSON pointer. */
export interface ConfigIssue {
  /** JSON pointer into the config, e.g. `/http/port`; `` for the root. */
  path: string;
  message: string;
}

export class ConfigError extends SwitchboardError {
  readonly file: string | undefined;
  readonly issues: ConfigIssue[];
  readonly hint: string | undefined;

  constructor(
    /** CONFIG_UNSTARTABLE: the file is valid, and the start check found what a start would fail on. */
    code: 'CONFIG_INVALID' | 'CONFIG_PARSE' | 'CONFIG_READ' | 'CONFIG_ENV_MISSING' | 'CONFIG_UNSTARTABLE',
    file: string | undefined,
    issues: ConfigIssue[],
    /** What to do, after the issues (a missing variable: where variables are read from). */
    hint?: string,
  ) {
    const where = file ?? 'built-in config';
    const lines = issues.map((issue) => `  ${issue.path || '/'}: ${issue.message}`);
    const what = code === 'CONFIG_UNSTARTABLE' ? 'cannot start with this config' : 'invalid config';
    super(code, `${where}: ${what}\n${[...lines, ...(hint ? [hint] : [])].join('\n')}`);
    this.name = 'ConfigError';
    this.file = file;
    this.issues = issues;
    this.hint = hint;
  }
}
