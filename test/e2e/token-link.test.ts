import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { listModes } from '../helpers/fresh-clone.js';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import {
  isReadyLine,
  killRunningChildren,
  pollUntil,
  spawnGateway,
  spawnOnTerminal,
  writeConfig,
} from '../helpers/process.js';

// The first start generates the HTTP token. Its sign-in link is printed only when stdout is a
// terminal (a person is reading); otherwise the output ends up in a log file (pm2, systemd, a
// pipe), so the ready line says where the token file is instead. And whatever umask the process
// was started with, the state dir ends up private, what was there before included.

let dir: string;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-token-link-');
});

afterEach(async () => {
  await killRunningChildren();
});

afterAll(async () => {
  await killRunningChildren();
  await removeDir(dir);
});

/** A config without http.token, in its own state dir. */
async function freshConfig(name: string): Promise<{ config: string; stateDir: string }> {
  const stateDir = path.join(dir, `${name}-state`);
  const config = await writeConfig(dir, { stateDir, http: { port: await freePort() } }, `${name}.jsonc`);
  return { config, stateDir };
}

const readToken = async (stateDir: string) =>
  (await readFile(path.join(stateDir, 'http-token'), 'utf8')).trim();

describe('the first-start token link', () => {
  it('is not printed when stdout is not a terminal: the ready line names the token file', async () => {
    const { config, stateDir } = await freshConfig('pipe');
    // A state dir left world-readable by an earlier start, with a world-readable file in it.
    await mkdir(path.join(stateDir, 'logs'), { recursive: true, mode: 0o755 });
    await chmod(stateDir, 0o755);
    await writeFile(path.join(stateDir, 'logs', 'old.log'), 'an older log\n', { mode: 0o644 });
    // Started with this test's umask (022 from a usual shell), as a service manager would start it.
    const gateway = spawnGateway(['start', '--config', config]);
    await gateway.waitForReady();

    const token = await readToken(stateDir);
    expect(gateway.stdout() + gateway.stderr()).not.toContain(token);
    const ready = gateway.logLines().find(isReadyLine);
    expect(ready?.msg).toContain(`/?token=<token from ${path.join(stateDir, 'http-token')}>`);

    const exposed = Object.entries(await listModes(stateDir)).filter(
      ([entry, mode]) => mode !== (entry.endsWith('/') ? '700' : '600'),
    );
    expect(exposed).toEqual([]);
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toMatchObject({ code: 0 });
  });

  it('is printed when stdout is a terminal (a pseudo-terminal from script(1))', async () => {
    const { config, stateDir } = await freshConfig('tty');
    const terminal = spawnOnTerminal(['start', '--config', config]);
    try {
      await pollUntil('the ready line on the terminal', () =>
        terminal.output().includes('Switchboard ready'),
      );
      const token = await readToken(stateDir);
      expect(terminal.output()).toContain(`/?token=${token}`);
    } finally {
      terminal.kill('SIGTERM');
      await terminal.closed;
    }
  });
});
