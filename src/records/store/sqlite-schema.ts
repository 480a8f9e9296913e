/**
 * The SQLite layout (schema version 1). One table holds every namespace: `index_group` and `index_order`
 * are the namespace index's group and order (NULL where the namespace has no index, or where a
 * migrated entry waits for its first indexed open), and `entries_by_index` serves `page`.
 * `store_meta` holds `schema` (the version) and `unindexed:<namespace>` rows for namespaces whose
 * migrated entries still need their index positions computed.
 */
export const SCHEMA_VERSION = 1;

export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS store_meta (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS entries (
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  index_group TEXT,
  index_order REAL,
  PRIMARY KEY (namespace, key)
);
CREATE INDEX IF NOT EXISTS entries_by_index
  ON entries (namespace, index_group, index_order, key) WHERE index_group IS NOT NULL;
`;

/** The table of the layout before version 1: @keyv/sqlite's, keys `<namespace>:<key>`, values `{"value":…}`. */
export const LEGACY_TABLE = 'keyv';

/** The `store_meta` row naming a namespace whose migrated entries have no index position yet. */
export const unindexedMetaName = (namespace: string): string => `unindexed:${namespace}`;
