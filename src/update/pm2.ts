import { access, realpath } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fail, ok, type Result } from '../base/errors/index.js';

/** pm2's programmatic API (types from the development install; the code from the pm2 that runs the gateway). */
export type Pm2 = typeof import('pm2');

/** The pm2 that runs a gateway: its package directory and its home (its daemon's socket and pid files). */
export interface Pm2Installation {
  /** The pm2 package directory (holds `index.js`, `bin/pm2`). */
  package: string;
  /** `PM2_HOME` of the gateway's daemon; undefined: pm2's default (`~/.pm2`). */
  home?: string | undefined;
}

const requireHere = createRequire(import.meta.url);

const isFile = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

/**
 * The pm2 package that runs the gateway: pm2 is not a dependency of the gateway (it is the
 * supervisor, installed by whoever runs it, globally or with the project's development packages),
 * and its API must be the daemon's own version. Found, in order: from inside the gateway, the fork
 * container pm2 started it with (`<pm2>/lib/ProcessContainerFork.js`, its `argv[1]`); the `pm2`
 * command on PATH; this project's node_modules.
 */
export async function findPm2Package(options: {
  /** `process.argv[1]` of the gateway, when this is the gateway. */
  container?: string | undefined;
  path?: string | undefined;
}): Promise<Result<string>> {
  const container = options.container;
  if (container && /[\\/]lib[\\/]ProcessContainerFork(Bun)?\.js$/.test(container))
    return ok(path.resolve(container, '..', '..'));
  for (const directory of (options.path ?? '').split(path.delimiter).filter(Boolean)) {
    const command = path.join(directory, 'pm2');
    if (!(await isFile(command))) continue;
    const real = await realpath(command);
    const candidate = path.resolve(real, '..', '..');
    if (await isFile(path.join(candidate, 'lib', 'ProcessContainerFork.js'))) return ok(candidate);
  }
  try {
    return ok(path.dirname(requireHere.resolve('pm2/package.json')));
  } catch {
    return fail(
      'pm2 runs the gateway but its package was not found (not the pm2 command on PATH, not in node_modules): put pm2 on PATH',
    );
  }
}

const loaded = new Map<string, Pm2>();

/** pm2's API from `installation` (its home set before pm2 reads it), once per process. */
function loadPm2(installation: Pm2Installation): Pm2 {
  const known = loaded.get(installation.package);
  if (known) return known;
  if (installation.home !== undefined) process.env.PM2_HOME = installation.home;
  const pm2 = requireHere(installation.package) as Pm2;
  loaded.set(installation.package, pm2);
  return pm2;
}

/** Connects to the gateway's pm2 daemon, runs `use`, disconnects. */
export async function withPm2<T>(installation: Pm2Installation, use: (pm2: Pm2) => Promise<T>): Promise<T> {
  const pm2 = loadPm2(installation);
  await new Promise<void>((resolve, reject) => pm2.connect((error) => (error ? reject(error) : resolve())));
  try {
    return await use(pm2);
  } finally {
    pm2.disconnect();
  }
}
