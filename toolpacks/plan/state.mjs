import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * The plan state file, `<state dir>/toolpack-state/plan/state.json`:
 * `{ "version": 1, "activePlan": Plan | null, "archivedPlans": Plan[] }`.
 *
 * Every read-modify-write runs under a per-file lock (tools, WebUI actions and scheduler ticks may
 * overlap), and writes are atomic: a temp file in the same directory, then a rename.
 */

export const ARCHIVE_LIMIT = 20;

const locks = new Map();
let tempCounter = 0;

export function stateFile(store) {
  const root = store?.paths?.root;
  if (typeof root !== 'string' || root === '') throw new Error('the plan toolpack needs store.paths.root');
  return path.join(root, 'toolpack-state', 'plan', 'state.json');
}

export function emptyState() {
  return { version: 1, activePlan: null, archivedPlans: [] };
}

/** Runs `task(state)` with the file locked; saves the state afterwards when `task` returns `save: true`. */
export function withState(store, task) {
  const file = stateFile(store);
  const previous = locks.get(file) ?? Promise.resolve();
  const run = previous.then(async () => {
    const state = await readState(file);
    const { result, save } = await task(state);
    if (save) await writeState(file, state);
    return result;
  });
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  locks.set(file, settled);
  void settled.then(() => {
    if (locks.get(file) === settled) locks.delete(file);
  });
  return run;
}

async function readState(file) {
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (error?.code === 'ENOENT') return emptyState();
    throw new Error(`cannot read the plan state ${file}: ${error?.message ?? error}`, { cause: error });
  }
  let parsed;
  try {
    parsed = JSON.parse(text);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
  } catch (error) {
    // Keep the unreadable file for a human and go on with an empty state.
    const aside = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    await rename(file, aside).catch(() => undefined);
    console.error(`plan toolpack: ${file} is not valid state (${error.message}); moved aside to ${aside}`);
    return emptyState();
  }
  const active = parsed.activePlan;
  return {
    version: 1,
    activePlan: active && typeof active === 'object' && Array.isArray(active.items) ? active : null,
    archivedPlans: Array.isArray(parsed.archivedPlans) ? parsed.archivedPlans.slice(0, ARCHIVE_LIMIT) : [],
  };
}

async function writeState(file, state) {
  await mkdir(path.dirname(file), { recursive: true });
  const body = {
    version: 1,
    activePlan: state.activePlan ?? null,
    archivedPlans: (state.archivedPlans ?? []).slice(0, ARCHIVE_LIMIT),
  };
  tempCounter += 1;
  const temp = `${file}.${process.pid}.${tempCounter}.tmp`;
  await writeFile(temp, `${JSON.stringify(body, null, 2)}\n`, 'utf8');
  await rename(temp, file);
}
