import { randomUUID } from 'node:crypto';
import type { NamespaceIndex, Store } from '../../../records/store/index.js';

/** One `completion.submit`: the final report an agent handed in for the people to approve. */
export interface CompletionRecord {
  /** `cmp_<uuid>`: the store key. */
  id: string;
  /** The agent that submitted it. */
  agentId: string;
  /** The report, in Markdown, as submitted. */
  report: string;
  /** Where the agent says the report (or its artifact) lives, when it gave one. */
  path?: string;
  /** When it was submitted (ISO 8601). */
  submittedAt: string;
}

export interface CompletionSubmission {
  agentId: string;
  report: string;
  path?: string;
}

export interface CompletionRecords {
  /** Stores a submission; resolves with its record once the write is durable. */
  submit(submission: CompletionSubmission): Promise<CompletionRecord>;
  /** The latest submissions, newest first (at most `limit`, default 20, 1–1000). */
  list(options?: { limit?: number; agentId?: string }): Promise<CompletionRecord[]>;
  /** The newest submission (of `agentId` when given), or undefined when there is none. */
  latest(agentId?: string): Promise<CompletionRecord | undefined>;
}

/** The store namespace the records live in (one per gateway store; the project is the gateway). */
export const COMPLETIONS_NAMESPACE = 'completions';

/** One list, newest first by submission time (a submission is never rewritten). */
const COMPLETION_INDEX: NamespaceIndex<CompletionRecord> = {
  order: (_key, record) => {
    const ms = Date.parse(record.submittedAt);
    return Number.isFinite(ms) ? ms : 0;
  },
};

/**
 * The submissions of `completion.submit`, in the store namespace `completions`: what the tool writes
 * and the WebUI entry `completion.report` reads. Every submission is kept (Suzumio keeps each report
 * file); reads page the index, newest first, and never read the whole namespace unless an agent
 * filter needs more than one page.
 */
export function createCompletionRecords(options: { store: Store; now?: () => Date }): CompletionRecords {
  const namespace = options.store.namespace<CompletionRecord>(COMPLETIONS_NAMESPACE, {
    index: COMPLETION_INDEX,
  });
  const now = options.now ?? (() => new Date());
  const list: CompletionRecords['list'] = async (read = {}) => {
    const limit = Math.min(Math.max(Math.trunc(read.limit ?? 20), 1), 1000);
    const found: CompletionRecord[] = [];
    let after: { order: number; key: string } | undefined;
    do {
      const page = await namespace.page({ limit: read.agentId ? 1000 : limit, ...(after ? { after } : {}) });
      for (const entry of page.entries) {
        if (read.agentId === undefined || entry.value.agentId === read.agentId) found.push(entry.value);
        if (found.length === limit) return found;
      }
      after = page.next;
    } while (after);
    return found;
  };
  return {
    async submit(submission) {
      const record: CompletionRecord = {
        id: `cmp_${randomUUID()}`,
        agentId: submission.agentId,
        report: submission.report,
        ...(submission.path === undefined ? {} : { path: submission.path }),
        submittedAt: now().toISOString(),
      };
      await namespace.set(record.id, record);
      return record;
    },
    list,
    latest: async (agentId) => (await list({ limit: 1, ...(agentId === undefined ? {} : { agentId }) }))[0],
  };
}
