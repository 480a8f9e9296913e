import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { UpdateConfig } from '../base/config/index.js';
import { fail, ok, type Result } from '../base/errors/index.js';
import { git } from './commands.js';
import type { GitSource, UpdateCheck, UpdateVersion } from './types.js';

/** The files whose change means the config schema changed. */
const SCHEMA_FILES = /^(src\/base\/config\/schema\/[^/]+\.ts|config\/gateway\.schema\.json)$/;

/** Whether the config schema changed between two commits. */
export async function configSchemaChanged(root: string, from: string, to: string): Promise<Result<boolean>> {
  const names = await git(root, 'diff', '--name-only', from, to);
  return names.ok ? ok(names.value.split('\n').some((name) => SCHEMA_FILES.test(name))) : names;
}
const MAX_COMMITS = 50;

/** The checkout's top directory, or why `root` is not one (updates need a git checkout). */
export async function checkoutRoot(root: string): Promise<Result<string>> {
  const top = await git(root, 'rev-parse', '--show-toplevel');
  if (!top.ok)
    return fail(
      `${root} is not a git checkout: update.run updates a gateway running from a git checkout (an npm package source is not supported yet)`,
    );
  return ok(top.value);
}

/**
 * The configured source, else the checkout's upstream (`git rev-parse @{u}`): a remote and branch.
 * A checkout without an upstream and no `update.source.git` is an error saying what to set.
 */
export async function resolveSource(
  root: string,
  settings: UpdateConfig['source'],
): Promise<Result<GitSource>> {
  const configured = settings.git;
  if (configured?.remote && configured.branch)
    return ok({ kind: 'git', remote: configured.remote, branch: configured.branch });
  const upstream = await git(root, 'rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{u}');
  const [remote, ...branch] = upstream.ok ? upstream.value.split('/') : [];
  if (!remote || branch.length === 0)
    return fail(
      `${root} has no upstream branch and update.source.git does not name one: set update.source.git.remote and .branch in the config (or \`git branch --set-upstream-to\`)`,
    );
  return ok({
    kind: 'git',
    remote: configured?.remote ?? remote,
    branch: configured?.branch ?? branch.join('/'),
  });
}

/** The version a directory's checkout is at: commit, tag (exact), package.json's version. */
export async function versionAt(root: string, commit = 'HEAD'): Promise<Result<UpdateVersion>> {
  const full = await git(root, 'rev-parse', '--verify', `${commit}^{commit}`);
  if (!full.ok) return full;
  const tag = await git(root, 'describe', '--tags', '--exact-match', full.value);
  const manifest = await git(root, 'show', `${full.value}:package.json`);
  let packageVersion: string | undefined;
  try {
    packageVersion = manifest.ok
      ? String((JSON.parse(manifest.value) as { version?: unknown }).version)
      : undefined;
  } catch {}
  return ok({
    commit: full.value,
    tag: tag.ok && tag.value ? tag.value : undefined,
    package: packageVersion,
  });
}

/** The ref a fetched source lands in, private to the updater (the user's remote-tracking refs are not moved). */
export function fetchedRef(source: GitSource): string {
  return `refs/switchboard-update/${source.remote.replace(/[^A-Za-z0-9._-]/g, '_')}/${source.branch}`;
}

/** Fetches the source's branch into `fetchedRef`. */
export async function fetchSource(root: string, source: GitSource): Promise<Result<string>> {
  const ref = fetchedRef(source);
  const fetched = await git(
    root,
    'fetch',
    '--quiet',
    '--no-tags',
    source.remote,
    `+refs/heads/${source.branch}:${ref}`,
  );
  if (!fetched.ok) return fail(`fetching ${source.remote} ${source.branch} failed: ${fetched.error}`);
  await git(root, 'fetch', '--quiet', '--tags', source.remote);
  return ok(ref);
}

/** The version a git checkout runs: `dist/update-build.json` (written at a switch) or the checkout's HEAD. */
export async function runningVersion(root: string): Promise<Result<UpdateVersion>> {
  try {
    const build = JSON.parse(
      await readFile(path.join(root, 'dist', 'update-build.json'), 'utf8'),
    ) as UpdateVersion;
    if (typeof build.commit === 'string') return ok(build);
  } catch {}
  return versionAt(root);
}

/**
 * `update.check`: fetches, then compares the running version with the source's head: the commits
 * between, and whether the lockfile or the config schema changed.
 */
export async function checkForUpdate(options: {
  root: string;
  settings: UpdateConfig;
  rolledBack: readonly string[];
}): Promise<Result<UpdateCheck>> {
  const { root } = options;
  const source = await resolveSource(root, options.settings.source);
  if (!source.ok) return source;
  const ref = await fetchSource(root, source.value);
  if (!ref.ok) return ref;
  const current = await runningVersion(root);
  if (!current.ok) return current;
  const available = await versionAt(root, ref.value);
  if (!available.ok) return available;
  const range = `${current.value.commit}..${available.value.commit}`;
  const log = await git(root, 'log', '--format=%H%x09%s', `--max-count=${MAX_COMMITS}`, range);
  if (!log.ok) return log;
  const commits = log.value
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [commit = '', ...subject] = line.split('\t');
      return { commit, subject: subject.join('\t') };
    });
  const names = await git(root, 'diff', '--name-only', current.value.commit, available.value.commit);
  if (!names.ok) return names;
  const changed = names.value.split('\n').filter(Boolean);
  return ok({
    source: source.value,
    current: current.value,
    available: available.value,
    commits,
    newer: current.value.commit !== available.value.commit && commits.length > 0,
    lockfileChanged: changed.includes('package-lock.json'),
    configSchemaChanged: changed.some((name) => SCHEMA_FILES.test(name)),
    rolledBackBefore: options.rolledBack.includes(available.value.commit),
  });
}

/** `update.check` in words for a chat or a terminal. */
export function describeCheck(check: UpdateCheck): string {
  const name = (version: UpdateVersion) =>
    `${version.commit.slice(0, 7)}${version.tag ? ` (${version.tag})` : ''}`;
  if (!check.newer)
    return `Up to date: ${name(check.current)} is the head of ${check.source.remote} ${check.source.branch}.`;
  const lines = [
    `Update available from ${check.source.remote} ${check.source.branch}: ${name(check.current)} → ${name(check.available)}, ${check.commits.length} commit(s):`,
    ...check.commits.map((commit) => `- ${commit.commit.slice(0, 7)} ${commit.subject}`),
    `package-lock.json ${check.lockfileChanged ? 'changed (npm ci runs)' : 'unchanged (node_modules reused)'}; config schema ${check.configSchemaChanged ? 'changed' : 'unchanged'}.`,
  ];
  if (check.rolledBackBefore)
    lines.push(
      `${name(check.available)} rolled back before: update.run tries it only when you name it (target).`,
    );
  return lines.join('\n');
}

/**
 * The version this build runs, read once in the background (`/readyz` reads it): undefined until
 * read, and where the package is not a git checkout.
 */
export function createVersionProbe(
  root = fileURLToPath(new URL('../../', import.meta.url)),
): () => UpdateVersion | undefined {
  let version: UpdateVersion | undefined;
  void runningVersion(root).then((read) => {
    if (read.ok) version = read.value;
  });
  return () => version;
}
