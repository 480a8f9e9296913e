import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Suzumio-internal APIs a controller may reach for that Switchboard does not provide, and how
 * code names them. None today: `store.db` (Suzumio's SQLite handle) is provided read-only since
 * issue 35 (docs/toolpack-store.md); the report stays for the next one.
 */
const UNPROVIDED_APIS: readonly { api: string; pattern: RegExp }[] = [];

/** Bounds of the scan: a toolpack is a few modules, not a tree to walk. */
const MAX_FILES = 200;
const MAX_FILE_BYTES = 1_000_000;
const MAX_DEPTH = 3;

/**
 * The unprovided APIs the toolpack's `.mjs` modules name (the load-time report), found by reading
 * them: a controller that reaches for one runs, and finds `undefined` there. Unreadable files and
 * `node_modules` are skipped; never throws.
 */
export function scanUnprovidedApis(directory: string): string[] {
  const found = new Set<string>();
  for (const file of moduleFiles(directory)) {
    let text: string;
    try {
      if (statSync(file).size > MAX_FILE_BYTES) continue;
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const { api, pattern } of UNPROVIDED_APIS) if (pattern.test(text)) found.add(api);
  }
  return [...found];
}

function moduleFiles(directory: string): string[] {
  const files: string[] = [];
  const walk = (folder: string, depth: number) => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (files.length >= MAX_FILES) return;
      const full = path.join(folder, entry.name);
      if (entry.isDirectory() && depth < MAX_DEPTH && entry.name !== 'node_modules') walk(full, depth + 1);
      else if (entry.isFile() && entry.name.endsWith('.mjs')) files.push(full);
    }
  };
  walk(directory, 0);
  return files;
}
