import {
  MAX_PAGE_LIMIT,
  type NamespaceIndex,
  type PageCursor,
  type Store,
} from '../../records/store/index.js';

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
  /** Why it failed, for error and timeout; why it was not resumed, for one a restart interrupted. */
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
  /** `models.<name>` the child uses (the first of `models` when it has a chain). */
  model: string;
  /** The child's model chain (primary first) when the spawn named no model and its agent has fallbacks. */
  models?: string[];
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
  /**
   * The chat sender whose turn spawned the run (or the one who caused that turn): the run's turns
   * and its announcement count to their budget. Stored, so a restart charges them still.
   */
  chargedTo?: string;
  /** Restarts that cut the run short and resumed it (at most 2: its third interruption ends it). */
  resumes?: number;
  /** `false`: its end is not announced to the requester (the spawn's `announce`, else `agents.<id>.announce`). */
  announce?: boolean;
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
 * `subagent-runs`: one list per requester session, by start time (runs written by the current
 * release carry both, so they are listed without rewriting them).
 */
export const SUBAGENT_RUN_INDEX: NamespaceIndex<StoredSubagentRun> = {
  group: (_key, run) => run.requesterSessionKey,
  order: (_key, run) => run.startedAt,
};

/**
 * The sub-agent run registry in the store, so it survives restarts. Runs are one key each in
 * `subagent-runs`, listed per requester session; `subagent-latest` names the latest run of each
 * child session and `subagent-active` the ids of active runs, so that listing children and the
 * start-up sweep never scan every run. (`subagent-children`, the requester's list of run ids the
 * release before rewrote on every spawn, is no longer read or written.)
 */
export function createSubagentRegistry(options: { store: Store }): SubagentRegistry {
  const runs = options.store.namespace<StoredSubagentRun>('subagent-runs', { index: SUBAGENT_RUN_INDEX });
  const activeIds = options.store.namespace<true>('subagent-active');
  const latest = options.store.namespace<string>('subagent-latest');

  async function writeRun(run: SubagentRun): Promise<void> {
    await Promise.all([
      runs.set(run.subagentRunId, toStored(run)),
      isActiveSubagentRun(run) ? activeIds.set(run.subagentRunId, true) : activeIds.delete(run.subagentRunId),
    ]);
  }

  return {
    async add(run) {
      await Promise.all([writeRun(run), latest.set(run.childSessionKey, run.subagentRunId)]);
    },
    async latestByChild(childSessionKey) {
      const subagentRunId = await latest.get(childSessionKey);
      return subagentRunId === undefined ? undefined : loaded(await runs.get(subagentRunId));
    },
    get: async (subagentRunId) => loaded(await runs.get(subagentRunId)),
    update: writeRun,
    async byRequester(requester) {
      const found: SubagentRun[] = [];
      let after: PageCursor | undefined;
      do {
        const page = await runs.page({
          group: requester,
          limit: MAX_PAGE_LIMIT,
          ...(after ? { after } : {}),
        });
        for (const entry of page.entries) found.push(fromStored(entry.value));
        after = page.next;
      } while (after);
      return found.reverse();
    },
    async active() {
      const ids: string[] = [];
      for await (const [subagentRunId] of activeIds.entries()) ids.push(subagentRunId);
      const found = (await runs.getMany(ids)).map(loaded);
      return found.filter((run): run is SubagentRun => run !== undefined && isActiveSubagentRun(run));
    },
  };
}
