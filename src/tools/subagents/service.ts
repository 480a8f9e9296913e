import type { Result } from '../../errors/index.js';
import type { SubagentRun } from '../../sessions/index.js';
import type { TurnScope } from '../turn-scope.js';

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

/** How a steer reached the child: into its waiting or running run, or as a new run of an ended child. */
export interface SteerDelivery {
  mode: 'injected' | 'restarted';
  /** The run that gets the message. */
  subagentRunId: string;
}

export type SteerResult = Result<SteerDelivery>;

/** Sub-agents as tools and commands see them; built by the composition root. */
export interface SubagentsService {
  /** Starts a child run in a new session and returns at once; refusals name the limit. */
  spawn(caller: SubagentCaller, request: SpawnRequest): Promise<SpawnResult>;
  /** Every run the session spawned (all runs of all its children), oldest first. */
  runs(sessionKey: string): Promise<SubagentRun[]>;
  /**
   * Aborts the child's run and, recursively, its descendants' runs (also below children that
   * have ended), and drops their queued messages. Returns the runs that were active and are now
   * killed (the target first when it was among them); a run whose completion was already being
   * recorded is not killed and not returned.
   */
  kill(run: SubagentRun): Promise<SubagentRun[]>;
  /** A running child gets the message before its next model call; an ended one a new turn. */
  steer(caller: SubagentCaller, run: SubagentRun, message: string): Promise<SteerResult>;
}

/**
 * The model-facing JSON of `sessions_spawn` (its shape predates `Result` and does not change):
 * `{ status: 'accepted', runId, childSessionKey }`, or `{ ok: false, reason }`.
 */
export type SpawnToolOutput =
  | { status: 'accepted'; runId: string; childSessionKey: string }
  | { ok: false; reason: string };

export function spawnToolOutput(result: SpawnResult): SpawnToolOutput {
  return result.ok
    ? { status: 'accepted', runId: result.value.subagentRunId, childSessionKey: result.value.childSessionKey }
    : { ok: false, reason: result.error };
}
