import type { Result } from '../../base/errors/index.js';
import type { TurnScope } from './turn-scope.js';

/**
 * What the sub-agent tools (`sessions_spawn`, `subagents`) and the `/subagents` and `/stop`
 * commands need of the sub-agents (`src/engine/subagents/`, whose `SubagentManager` implements it): start
 * a child, and list, kill or steer the caller's children. Declared here, where its users are; the
 * gateway hands it over.
 */
export interface SubagentsPort {
  /** Starts a child run in a new session and returns at once; refusals name the limit. */
  spawn(caller: SubagentCaller, request: SpawnRequest): Promise<SpawnResult>;
  /**
   * `list`, `kill` or `steer` on the caller's own children; expected failures are
   * `{ status: 'error', error }` results, never exceptions.
   */
  act(caller: SubagentCaller, input: SubagentsActionInput): Promise<SubagentsActionResult>;
}

export interface SpawnRequest {
  task: string;
  label?: string | undefined;
  agentId?: string | undefined;
  /** A `models.<name>` other than the agent's own. */
  model?: string | undefined;
  runTimeoutSeconds?: number | undefined;
  /** Whether the child's end is announced to the requester; default: the child agent's `announce`. */
  announce?: boolean | undefined;
}

/** A spawn that was accepted: the child's first run, queued or started. */
export interface SpawnedRun {
  subagentRunId: string;
  childSessionKey: string;
}

/** Accepted, or refused with a text naming the limit (and its config key). */
export type SpawnResult = Result<SpawnedRun>;

/** The session (and its run) asking: it sees, steers and kills only the children it spawned. */
export interface SubagentCaller extends Pick<TurnScope, 'sessionKey' | 'agentId'> {
  /** The caller's own agent run, when a tool asks (the parent run of what it spawns). */
  runId?: string | undefined;
  /** Who the caller's turn is charged to (`causerOf`): what it spawns is charged to them too. */
  chargedTo?: string | undefined;
}

/** The actions the tool and `/subagents` take. */
export const SUBAGENTS_ACTIONS = ['list', 'kill', 'steer'] as const;

export interface SubagentsActionInput {
  action?: (typeof SUBAGENTS_ACTIONS)[number] | undefined;
  target?: string | undefined;
  message?: string | undefined;
  recentMinutes?: number | undefined;
}

/** One child session as `list` shows it (its latest run). */
export interface SubagentListEntry {
  /** 1-based, across active then recent: the number an index target names. */
  index: number;
  runId: string;
  label: string;
  /** The run's status (`SubagentRunStatus`: queued, running, done, error, timeout, killed, interrupted). */
  status: string;
  startedAt: number;
  /** Time so far for an active run; the run's runtime for an ended one. */
  runtimeMs: number;
  childSessionKey: string;
}

export type SubagentsActionResult =
  | {
      status: 'ok';
      action: 'list';
      /** The session whose children these are (Suzumio's original notes' fields). */
      requesterSessionKey: string;
      callerSessionKey: string;
      /** Whether the caller is itself a sub-agent. */
      callerIsSubagent: boolean;
      total: number;
      active: SubagentListEntry[];
      recent: SubagentListEntry[];
      text: string;
    }
  | {
      status: 'ok';
      action: 'kill';
      target: string;
      /** Absent for `all`. */
      runId?: string;
      sessionKey?: string;
      label?: string;
      /** Every run killed, descendants included. */
      killed: number;
      labels: string[];
      /** Descendants killed with a single target. */
      cascadeKilled?: number;
      text: string;
    }
  | {
      status: 'ok';
      action: 'steer';
      target: string;
      /** The run that gets the message: the running one, or the new run of an ended child. */
      runId: string;
      sessionKey: string;
      label: string;
      mode: 'injected' | 'restarted';
      text: string;
    }
  | { status: 'error'; action: string; target?: string; error: string };
