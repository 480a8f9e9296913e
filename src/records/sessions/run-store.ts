import { randomUUID } from 'node:crypto';
import type { Store } from '../store/index.js';

export type RunStatus = 'running' | 'done' | 'error' | 'killed' | 'timeout' | 'interrupted';

export interface RunRecord {
  runId: string;
  sessionKey: string;
  agentId: string;
  /** `models.<name>` the run used. */
  model: string;
  status: RunStatus;
  startedAt: string;
  endedAt?: string;
  runtimeMs?: number;
  /** Model calls made. */
  rounds: number;
  toolCalls: number;
  /** Why it ended, when not `done` normally (the error message, `max burst reached`). */
  outcome?: string;
  /** The tokens its model calls reported, summed as each call ended; absent before the first. */
  usage?: RunUsage;
}

/** A run's tokens, and their cost when its models have a price (`models.<name>.price`). */
export interface RunUsage {
  inputTokens: number;
  outputTokens: number;
  cost?: number;
  /** The models (`models.<name>`) that answered its calls, in order; more than `model` after a failover. */
  answeredBy?: string[];
}

export interface RunStore {
  start(init: { sessionKey: string; agentId: string; model: string }): Promise<RunRecord>;
  finish(
    runId: string,
    end: {
      status: Exclude<RunStatus, 'running'>;
      rounds: number;
      toolCalls: number;
      outcome?: string;
      answeredBy?: string[];
    },
  ): Promise<RunRecord | undefined>;
  get(runId: string): Promise<RunRecord | undefined>;
  /** Adds one model call's tokens to the run's total (the run's own writes are sequential: no queue). */
  addUsage(runId: string, usage: RunUsage): Promise<void>;
  /**
   * Marks every run still `running` as `interrupted`: called at start, when no run of this
   * process exists yet. Returns the runs it marked.
   */
  markInterrupted(): Promise<RunRecord[]>;
}

/**
 * The run registry. Every run is one record in `runs`; the ids of running runs are also kept
 * in `active-runs`, so that the start-up sweep reads only those, however many runs exist.
 */
export function createRunStore(options: { store: Store; now?: () => Date }): RunStore {
  const runs = options.store.namespace<RunRecord>('runs');
  const active = options.store.namespace<string>('active-runs');
  const now = options.now ?? (() => new Date());

  async function end(
    record: RunRecord,
    status: Exclude<RunStatus, 'running'>,
    fields: Partial<RunRecord>,
  ): Promise<RunRecord> {
    const endedAt = now();
    const ended: RunRecord = {
      ...record,
      ...fields,
      status,
      endedAt: endedAt.toISOString(),
      runtimeMs: Math.max(0, endedAt.getTime() - Date.parse(record.startedAt)),
    };
    await runs.set(record.runId, ended);
    await active.delete(record.runId);
    return ended;
  }

  return {
    async start(init) {
      const record: RunRecord = {
        runId: randomUUID(),
        ...init,
        status: 'running',
        startedAt: now().toISOString(),
        rounds: 0,
        toolCalls: 0,
      };
      await runs.set(record.runId, record);
      await active.set(record.runId, record.sessionKey);
      return record;
    },
    async finish(runId, { status, ...fields }) {
      const record = await runs.get(runId);
      return record ? end(record, status, fields) : undefined;
    },
    get: (runId) => runs.get(runId),
    async addUsage(runId, usage) {
      const record = await runs.get(runId);
      if (record) await runs.set(runId, { ...record, usage: addRunUsage(record.usage, usage) });
    },
    async markInterrupted() {
      const marked: RunRecord[] = [];
      const runIds: string[] = [];
      for await (const [runId] of active.entries()) runIds.push(runId);
      for (const runId of runIds) {
        const record = await runs.get(runId);
        if (record?.status === 'running') {
          marked.push(await end(record, 'interrupted', { outcome: 'the gateway stopped during the run' }));
        } else {
          await active.delete(runId);
        }
      }
      return marked;
    },
  };
}

function addRunUsage(total: RunUsage | undefined, usage: RunUsage): RunUsage {
  const sum = {
    inputTokens: (total?.inputTokens ?? 0) + usage.inputTokens,
    outputTokens: (total?.outputTokens ?? 0) + usage.outputTokens,
  };
  if (total?.cost === undefined && usage.cost === undefined) return sum;
  return { ...sum, cost: (total?.cost ?? 0) + (usage.cost ?? 0) };
}
