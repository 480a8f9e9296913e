import { randomInt } from 'node:crypto';
import type { KeyValueNamespace, NamespaceIndex, Store } from '../../records/store/index.js';
import type { ApprovalRecord } from './types.js';

/** Codes people type: no 0/O, 1/I/L, so they survive being read aloud or retyped. */
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 6;
const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** How many decided requests a typed code is looked up among. */
const CLOSED_LOOKUP = 200;

const isOpen = (record: ApprovalRecord) => record.status === 'pending' || record.status === 'approved';

/** Two lists, newest first. One object: a store compares the index a namespace is opened with. */
const APPROVALS_INDEX: NamespaceIndex<ApprovalRecord> = {
  group: (_key, record) => (isOpen(record) ? 'open' : 'closed'),
  order: (_key, record) => Date.parse(record.createdAt),
};

/**
 * The requests, durable in the store's `approvals` namespace (two lists: `open` and `closed`, newest
 * first), with the open ones in memory: every decision reads and changes the in-memory record
 * synchronously before it awaits the write, so two clicks at once cannot both find it pending.
 */
export function createApprovalRecords(store: Store) {
  const namespace: KeyValueNamespace<ApprovalRecord> = store.namespace<ApprovalRecord>('approvals', {
    index: APPROVALS_INDEX,
  });
  const open = new Map<string, ApprovalRecord>();
  return {
    /** Reads the open requests the last process left (once, at start). */
    async load(): Promise<ApprovalRecord[]> {
      let after: { order: number; key: string } | undefined;
      do {
        const page = await namespace.page({ group: 'open', limit: 1000, ...(after ? { after } : {}) });
        for (const entry of page.entries) open.set(entry.key, entry.value);
        after = page.next;
      } while (after);
      return [...open.values()];
    },
    open: () => [...open.values()],
    /** Resolves once the record is durable; an open record stays in memory, a closed one leaves. */
    async save(record: ApprovalRecord): Promise<void> {
      if (isOpen(record)) open.set(record.id, record);
      else open.delete(record.id);
      await namespace.set(record.id, record);
    },
    /** An open request from memory, or any request from the store. */
    async byId(id: string): Promise<ApprovalRecord | undefined> {
      return open.get(id) ?? (await namespace.get(id));
    },
    /** The open request with this code, else the latest decided one that had it. */
    async byCode(code: string): Promise<ApprovalRecord | undefined> {
      const wanted = code.trim().toUpperCase();
      const found = [...open.values()].find((record) => record.code === wanted);
      if (found) return found;
      const closed = await namespace.page({ group: 'closed', limit: CLOSED_LOOKUP });
      return closed.entries.find((entry) => entry.value.code === wanted)?.value;
    },
    /** The latest decided requests (used, denied, expired), newest first. */
    async closed(limit: number): Promise<ApprovalRecord[]> {
      const page = await namespace.page({ group: 'closed', limit });
      return page.entries.map((entry) => entry.value);
    },
    newId: () => `ap_${randomText(ID_ALPHABET, 12)}`,
    /** A code no open request has. */
    newCode(): string {
      const taken = new Set([...open.values()].map((record) => record.code));
      let code = randomText(CODE_ALPHABET, CODE_LENGTH);
      while (taken.has(code)) code = randomText(CODE_ALPHABET, CODE_LENGTH);
      return code;
    },
  };
}

export type ApprovalRecords = ReturnType<typeof createApprovalRecords>;

function randomText(alphabet: string, length: number): string {
  let text = '';
  for (let index = 0; index < length; index += 1) text += alphabet[randomInt(alphabet.length)];
  return text;
}
