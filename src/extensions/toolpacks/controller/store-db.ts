import Database from 'better-sqlite3';
import { SwitchboardError } from '../../../base/errors/index.js';

/** How many rows each `store.db` table holds at most (the newest). */
export const STORE_DB_MAX_ROWS = 1000;

/** One signal as `store.db`'s `signals` table shows it (Suzumio's columns). */
export interface StoreDbSignal {
  id: string;
  kind: string;
  /** Who recorded it (`toolpack:<id>`, `agent:<id>`, `message:<sender>`, `scheduler`). */
  source: string;
  targetAgent?: string;
  targetChannel?: string;
  priority: string;
  status: 'pending' | 'delivered';
  payload?: unknown;
  createdAt: string;
  deliveredAt?: string;
}

/** One message as `store.db`'s `messages` table shows it. */
export interface StoreDbMessage {
  id: string;
  sender: string;
  recipient?: string;
  channel?: string;
  priority: string;
  body: string;
  createdAt: string;
}

/** One wake turn (Suzumio's activation) as `store.db`'s `activations` table shows it. */
export interface StoreDbActivation {
  id: string;
  agentId: string;
  status: 'running' | 'completed' | 'failed' | 'cancelled';
  startedAt: string;
  completedAt?: string;
  error?: string;
}

/** Switchboard's records `store.db` is filled from, read synchronously at each query. */
export interface StoreDbSources {
  /** The `project` column (the config's `project.id`, the scheduler hook's `context.project`). */
  project: string;
  signals(): readonly StoreDbSignal[];
  messages?(): readonly StoreDbMessage[];
  activations?(): readonly StoreDbActivation[];
}

/** The tables and columns `store.db` has; docs/toolpack-store.md lists them. */
const SCHEMA = `
CREATE TABLE signals (id TEXT PRIMARY KEY, project TEXT NOT NULL, kind TEXT NOT NULL, source TEXT,
  source_agent TEXT, source_activation TEXT, target_agent TEXT, target_channel TEXT,
  priority TEXT NOT NULL, payload_json TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL,
  delivered_at TEXT);
CREATE TABLE messages (id TEXT PRIMARY KEY, project TEXT NOT NULL, sender TEXT NOT NULL, recipient TEXT,
  channel TEXT, priority TEXT NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE activations (id TEXT PRIMARY KEY, project TEXT NOT NULL, agent_id TEXT NOT NULL,
  status TEXT NOT NULL, started_at TEXT NOT NULL, completed_at TEXT, error TEXT);
`;

export const STORE_DB_TABLES = ['signals', 'messages', 'activations'] as const;

/** A prepared read of `store.db`: Suzumio's `node:sqlite` statement surface (`all`, `get`, `iterate`). */
export interface StoreDbStatement {
  all(...parameters: unknown[]): unknown[];
  get(...parameters: unknown[]): unknown;
  iterate(...parameters: unknown[]): IterableIterator<unknown>;
}

/** `context.store.db`: read-only SQL over Switchboard's records, in Suzumio's table and column names. */
export interface StoreDb {
  prepare(sql: string): StoreDbStatement;
  /** Refused: `store.db` is read-only. */
  exec(sql: string): never;
  readonly tables: readonly string[];
}

/**
 * An in-memory SQLite database (better-sqlite3) with Suzumio's tables for what Switchboard keeps,
 * refilled from `sources` before each query (the newest `STORE_DB_MAX_ROWS` rows per table), so it
 * is current whatever the store driver. Only reads are prepared: a statement that would write is
 * refused naming the rule, and a table Switchboard does not keep is refused naming the ones it has.
 */
export function createStoreDb(sources: StoreDbSources): StoreDb {
  const db = new Database(':memory:');
  db.exec(SCHEMA);
  const refill = db.transaction(() => fill(db, sources));
  const prepare = (sql: string): StoreDbStatement => {
    const statement = prepared(db, sql);
    const fresh = () => {
      refill();
      return statement;
    };
    return Object.freeze({
      all: (...parameters: unknown[]) => fresh().all(...parameters),
      get: (...parameters: unknown[]) => fresh().get(...parameters),
      iterate: (...parameters: unknown[]) =>
        fresh()
          .all(...parameters)
          [Symbol.iterator](),
    });
  };
  return Object.freeze({
    prepare,
    exec(): never {
      throw readOnly();
    },
    tables: STORE_DB_TABLES,
  });
}

function prepared(db: Database.Database, sql: string): Database.Statement {
  if (typeof sql !== 'string')
    throw new SwitchboardError('TOOLPACK_STORE_DB', 'store.db.prepare: sql must be a string');
  let statement: Database.Statement;
  try {
    statement = db.prepare(sql);
  } catch (error) {
    const table = /no such table: (?:main\.)?(\S+)/.exec(String((error as Error).message))?.[1];
    if (table !== undefined)
      throw new SwitchboardError(
        'TOOLPACK_STORE_DB',
        `store.db: Switchboard keeps no table "${table}" (its tables: ${STORE_DB_TABLES.join(', ')}); see docs/toolpack-store.md`,
      );
    throw new SwitchboardError('TOOLPACK_STORE_DB', `store.db: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (!statement.readonly) throw readOnly();
  return statement;
}

function readOnly(): SwitchboardError {
  return new SwitchboardError(
    'TOOLPACK_STORE_DB',
    'store.db is read-only: only SELECT statements are allowed (Switchboard keeps its own records; use store.sendMessage, context.recordSignal or store.kv to change state)',
  );
}

const newest = <Row>(rows: readonly Row[] | undefined): readonly Row[] =>
  (rows ?? []).slice(-STORE_DB_MAX_ROWS);

function fill(db: Database.Database, sources: StoreDbSources): void {
  const { project } = sources;
  db.exec('DELETE FROM signals; DELETE FROM messages; DELETE FROM activations;');
  const signal = db.prepare(
    `INSERT OR REPLACE INTO signals (id, project, kind, source, source_agent, target_agent, target_channel,
      priority, payload_json, status, created_at, delivered_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const row of newest(sources.signals()))
    signal.run(
      row.id,
      project,
      row.kind,
      row.source,
      sourceAgent(row.source),
      row.targetAgent ?? null,
      row.targetChannel ?? null,
      row.priority,
      JSON.stringify(row.payload ?? {}),
      row.status,
      row.createdAt,
      row.deliveredAt ?? null,
    );
  const message = db.prepare(
    `INSERT OR REPLACE INTO messages (id, project, sender, recipient, channel, priority, body, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const row of newest(sources.messages?.()))
    message.run(
      row.id,
      project,
      row.sender,
      row.recipient ?? null,
      row.channel ?? null,
      row.priority,
      row.body,
      row.createdAt,
    );
  const activation = db.prepare(
    `INSERT OR REPLACE INTO activations (id, project, agent_id, status, started_at, completed_at, error)
      VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const row of newest(sources.activations?.()))
    activation.run(
      row.id,
      project,
      row.agentId,
      row.status,
      row.startedAt,
      row.completedAt ?? null,
      row.error ?? null,
    );
}

/** `agent:<id>` and `message:<id>` sources name an agent (Suzumio's `source_agent`). */
function sourceAgent(source: string): string | null {
  const match = /^(?:agent|message):(.+)$/.exec(source);
  return match?.[1] ?? null;
}
