// jobs.json: `{ "version": 1, "jobs": [...] }` under <state dir>/toolpack-state/scheduler/.
//
// Every read-modify-write of one file runs under a lock (tool calls and scheduler ticks may overlap
// in the gateway process). The parsed state is cached per file and reused while the file's
// identity (inode, size, mtime) is unchanged, so an idle tick costs one stat; an edit made by anyone
// else (or a restore from a backup) is read again. Writes go to a temp file renamed over jobs.json.

import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

// file -> { signature, state, dirty }; `dirty`: changed in memory but not written (a failed write).
const cache = new Map();
const locks = new Map(); // file -> tail of the operation chain

export function jobsFile(store) {
  return path.join(store.paths.root, 'toolpack-state', 'scheduler', 'jobs.json');
}

/**
 * Runs `task(state)` with the current state of `file`, alone. `state` is `{ version, jobs, hint }`
 * (`hint` is the caller's memo, dropped whenever the file is read again). When the task returns
 * `{ save: true }` the jobs are written back; the task's `value` is returned.
 */
export function withJobs(file, task) {
  const previous = locks.get(file) ?? Promise.resolve();
  const run = previous.then(async () => {
    const entry = await current(file);
    let outcome;
    try {
      outcome = (await task(entry.state)) ?? {};
    } catch (error) {
      // The task may have changed the state before it failed: read the file again next time.
      if (!entry.dirty) cache.delete(file);
      throw error;
    }
    if (outcome.save || entry.dirty) await write(file, entry);
    return outcome.value;
  });
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  locks.set(file, tail);
  void tail.then(() => {
    if (locks.get(file) === tail) locks.delete(file);
  });
  return run;
}

async function signature(file) {
  try {
    const info = await stat(file, { bigint: true });
    return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}`;
  } catch (error) {
    if (error?.code === 'ENOENT') return 'absent';
    throw error;
  }
}

async function current(file) {
  const seen = await signature(file);
  const cached = cache.get(file);
  // A dirty state holds sends the file does not show yet: keep it, so nothing fires twice.
  if (cached && (cached.dirty || cached.signature === seen)) return cached;
  const state = seen === 'absent' ? emptyState() : await read(file);
  // A corrupt file was moved aside: it is absent now.
  const entry = { signature: await signature(file), state, dirty: false };
  cache.set(file, entry);
  return entry;
}

const emptyState = () => ({ version: 1, jobs: [], hint: undefined });

async function read(file) {
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (error?.code === 'ENOENT') return emptyState();
    throw error;
  }
  let problem;
  let jobs;
  try {
    const parsed = JSON.parse(text);
    jobs = parsed?.jobs;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      problem = 'the top level is not an object';
    } else if (!Array.isArray(jobs)) {
      problem = '"jobs" is not an array';
    } else if (!jobs.every((job) => typeof job?.id === 'string' && typeof job.status === 'string')) {
      problem = 'a job is not an object with a string id and status';
    }
  } catch (error) {
    problem = `invalid JSON (${error.message})`;
  }
  if (problem === undefined) return { version: 1, jobs, hint: undefined };
  const aside = await freeName(`${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  await rename(file, aside);
  console.error(
    `[scheduler toolpack] ${file} is corrupt (${problem}); moved it to ${aside} and continuing with no jobs`,
  );
  return emptyState();
}

/** `name`, or `name-2`, `name-3`, … when taken: an earlier corrupt copy is never overwritten. */
async function freeName(name) {
  for (let index = 1; ; index++) {
    const candidate = index === 1 ? name : `${name}-${index}`;
    if ((await signature(candidate)) === 'absent') return candidate;
  }
}

async function write(file, entry) {
  const { state } = entry;
  entry.dirty = true;
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${randomUUID()}.tmp`;
  const text = `${JSON.stringify({ version: 1, jobs: state.jobs }, null, 2)}\n`;
  try {
    await writeFile(temp, text, 'utf8');
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  entry.dirty = false;
  entry.signature = await signature(file);
}
