import type { Store } from '../store/index.js';

/** `queued`: waiting for a `subagents.maxConcurrent` slot; `running`: its turn runs. Both are active. */
export type SubagentRunStatus =
  | 'queued'
  | 'running'
  | 'done'
  | 'error'
  | 'timeout'
  | 'killed'
  | 'interrupted';

/** How a child run ended, as announced to the requester (`success` is a run that ended `done`). */
export type SubagentOutcomeStatus = 'success' | 'error' | 'timeout' | 'killed' | 'interrupted';

export interface SubagentOutcome {
  status: SubagentOutcomeStatus;
  /** The child's last reply (empty when it wrote none). */
  result: string;
  /** Model rounds and tool calls of the run. */
  rounds: number;
  toolCalls: number;
  /** Why it failed, for error and timeout. */
  error?: string;
}

/**
 * One run of a sub-agent: spawning makes the first; steering an ended child makes the next. A
 * sub-agent run may span several agent runs (turns) of its child session: its steered turns.
 */
export interface SubagentRun {
  /** Its id (not an agent run's `runId`: those name turns in the run store). */
  subagentRunId: string;
  childSessionKey: string;
  /** The session that spawned the child: it sees, steers and kills it, and gets its announcements. */
  requesterSessionKey: string;
  /** The requester's agent run (a run store `runId`) that called sessions_spawn. */
  parentRunId?: string;
  label: string;
  task: string;
  agentId: string;
  /** `models.<name>` the child uses. */
  model: string;
  /** 1 for a child of a chat session, 2 for its child, … */
  depth: number;
  status: SubagentRunStatus;
  /** Epoch milliseconds. */
  startedAt: number;
  endedAt?: number;
  runtimeMs?: number;
  runTimeoutSeconds?: number;
  outcome?: SubagentOutcome;
  /** Who gave the task: the entry the run's first turn answers (default: the requester, as a user). */
  taskFrom?: { role: 'user' | 'system'; senderId: string };
  /** Messages steered to the run while it waited for a slot: delivered with its task, after a restart too. */
  steers?: string[];
}

export const isActiveSubagentRun = (run: SubagentRun): boolean =>
  run.status === 'queued' || run.status === 'running';

export interface SubagentRegistry {
  /** Records a new run (and indexes it under its requester). */
  add(run: SubagentRun): Promise<void>;
  get(subagentRunId: string): Promise<SubagentRun | undefined>;
  /** Writes a changed run. */
  update(run: SubagentRun): Promise<void>;
  /** Every run the session spawned (all runs of all its children), oldest first. */
  byRequester(requesterSessionKey: string): Promise<SubagentRun[]>;
  /** The latest run in a child session (undefined for a chat session). */
  latestByChild(childSessionKey: string): Promise<SubagentRun | undefined>;
  /** Every run still active in the store: at start, the runs the last process left behind. */
  active(): Promise<SubagentRun[]>;
}

/**
 * A run as the store holds it: its id is the field `runId` on disk (as written before the id had
 * its own name), converted here and nowhere else.
 */
type StoredSubagentRun = Omit<SubagentRun, 'subagentRunId'> & { runId: string };

const toStored = ({ subagentRunId, ...rest }: SubagentRun): StoredSubagentRun => ({
  runId: subagentRunId,
  ...rest,
});
const fromStored = ({ runId, ...rest }: StoredSubagentRun): SubagentRun => ({
  subagentRunId: runId,
  ...rest,
});
const loaded = (run: StoredSubagentRun | undefined) => (run === undefined ? undefined : fromStored(run));

/**
 * The sub-agent run registry in the store, so it survives restarts. Runs are one key each in
 * `subagent-runs`; `subagent-children` lists run ids per requester session, `subagent-latest` the
 * latest run of each child session and `subagent-active` the ids of active runs, so that listing
 * children and the start-up sweep never scan every run.
 * One process owns the registry: the indexes are cached after the first read.
 */
export function createSubagentRegistry(options: { store: Store }): SubagentRegistry {
  const runs = options.store.namespace<StoredSubagentRun>('subagent-runs');
  const children = options.store.namespace<string[]>('subagent-children');
  const activeIds = options.store.namespace<true>('subagent-active');
  const latest = options.store.namespace<string>('subagent-latest');
  const cachedChildren = new Map<string, string[]>();

  async function childIds(requester: string): Promise<string[]> {
    const cached = cachedChildren.get(requester);
    if (cached) return cached;
    const stored = (await children.get(requester)) ?? [];
    cachedChildren.set(requester, stored);
    return stored;
  }

  async function writeRun(run: SubagentRun): Promise<void> {
    await runs.set(run.subagentRunId, toStored(run));
    if (isActiveSubagentRun(run)) await activeIds.set(run.subagentRunId, true);
    else await activeIds.delete(run.subagentRunId);
  }

  return {
    async add(run) {
      await writeRun(run);
      const ids = [...(await childIds(run.requesterSessionKey)), run.subagentRunId];
      await children.set(run.requesterSessionKey, ids);
      cachedChildren.set(run.requesterSessionKey, ids);
      await latest.set(run.childSessionKey, run.subagentRunId);
    },
    async latestByChild(childSessionKey) {
      const subagentRunId = await latest.get(childSessionKey);
      return subagentRunId === undefined ? undefined : loaded(await runs.get(subagentRunId));
    },
    get: async (subagentRunId) => loaded(await runs.get(subagentRunId)),
    update: writeRun,
    async byRequester(requester) {
      const ids = await childIds(requester);
      const found = (await runs.getMany(ids)).map(loaded);
      return found.filter((run): run is SubagentRun => run !== undefined);
    },
    async active() {
      const ids: string[] = [];
      for await (const [subagentRunId] of activeIds.entries()) ids.push(subagentRunId);
      const found = (await runs.getMany(ids)).map(loaded);
      return found.filter((run): run is SubagentRun => run !== undefined && isActiveSubagentRun(run));
    },
  };
}
