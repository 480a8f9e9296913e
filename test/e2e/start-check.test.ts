import { readFile, rename, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import {
  killRunningChildren,
  PROCESS_TEST_TOKEN,
  pollUntil,
  runCli,
  sendMessage,
  spawnGateway,
  writeConfig,
} from '../helpers/process.js';

// The start check as an operator meets it, in the built process: `config patch` and `doctor`
// refuse the same configs with the same lines, a SIGUSR1 onto such a config keeps the process
// serving, and a first start onto one exits 1 naming the file and the path.

let dir: string;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-start-check-');
  // A regular file where a directory would have to be.
  await writeFile(path.join(dir, 'not-a-directory'), 'a file\n');
});

afterEach(async () => {
  await killRunningChildren();
});

afterAll(async () => {
  await killRunningChildren();
  await removeDir(dir);
});

/** Changes a start cannot go through with, and the JSON path each one is reported at. */
const UNSTARTABLE = [
  {
    name: 'prompt',
    patch: { agents: { main: { systemPromptFile: 'prompts/missing.md' } } },
    path: '/agents/main/systemPromptFile',
  },
  { name: 'redis', patch: { store: { url: 'redis://127.0.0.1:1' } }, path: '/store/url' },
  {
    name: 'state',
    patch: () => ({ stateDir: path.join(dir, 'not-a-directory', 'data') }),
    path: '/stateDir',
  },
];

const patchOf = (bad: (typeof UNSTARTABLE)[number]) =>
  typeof bad.patch === 'function' ? bad.patch() : bad.patch;

async function goodConfig(
  name: string,
  port = 8787,
): Promise<{ file: string; config: Record<string, unknown> }> {
  const config = { stateDir: path.join(dir, `${name}-state`), http: { port, token: PROCESS_TEST_TOKEN } };
  return { file: await writeConfig(dir, config, `${name}.jsonc`), config };
}

/** The `/path: message` lines of a refusal or a doctor report, without indentation or the file's header line. */
function issueLines(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => /^\s*\/[^\s]*: /.test(line) && !/: (cannot start.*|invalid config.*)$/.test(line))
    .map((line) => line.trim());
}

describe('switchboard config patch and doctor', () => {
  it('config patch refuses a config that cannot start, leaves the file, and doctor reports the same lines', async () => {
    // Each config in its own files: the three are checked at once.
    const check = async (bad: (typeof UNSTARTABLE)[number]) => {
      const { file, config } = await goodConfig(`cli-${bad.name}`);
      const before = await readFile(file, 'utf8');
      const patched = await runCli(['config', 'patch', JSON.stringify(patchOf(bad)), '--config', file]);
      expect(patched.code, bad.name).toBe(1);
      expect(patched.stdout, bad.name).toBe('');
      expect(await readFile(file, 'utf8'), bad.name).toBe(before);
      const refused = issueLines(patched.stderr);
      expect(refused.join('\n'), bad.name).toContain(`${bad.path}: `);

      // The same config written by hand: doctor names the same problem in the same words.
      const handmade = await writeConfig(dir, { ...config, ...patchOf(bad) }, `doctor-${bad.name}.jsonc`);
      const doctor = await runCli(['doctor', '--config', handmade]);
      expect(doctor.code, bad.name).toBe(1);
      expect(doctor.stdout, bad.name).not.toContain('OK\n');
      expect(issueLines(doctor.stderr), bad.name).toEqual(refused);
    };
    await Promise.all(UNSTARTABLE.map(check));
  }, 120_000);
});

describe('a config that cannot start', () => {
  it('SIGUSR1 onto it logs the refusal, keeps the process and keeps serving', async () => {
    const { file, config } = await goodConfig('usr1', await freePort());
    const gateway = spawnGateway(['start', '--config', file]);
    const url = await gateway.waitForReady();
    for (const [index, bad] of UNSTARTABLE.entries()) {
      await writeFile(file, JSON.stringify({ ...config, ...patchOf(bad) }));
      gateway.child.kill('SIGUSR1');
      const refusal = await pollUntil(`refusal #${index + 1}`, () => {
        const refusals = gateway.logLines().filter((line) => line.msg?.startsWith('Restart refused: '));
        return refusals.length > index ? refusals.at(-1) : undefined;
      });
      expect(refusal.msg).toContain(bad.path);
      expect(refusal.msg).toMatch(/; still running the previous config\.$/);
      const answer = await sendMessage(url, '/whoami');
      expect(answer.status).toBe(200);
      expect(answer.body.replies[0]?.text).toBe('You are webchat:local (owner).');
    }
    expect(gateway.child.exitCode).toBeNull();
    expect(gateway.logLines().filter((line) => line.msg === 'restarting')).toEqual([]);
  }, 120_000);

  it('a first start onto it exits 1 naming the file and the path', async () => {
    // Three processes at once, each on its own files and port.
    const start = async (bad: (typeof UNSTARTABLE)[number]) => {
      const { config } = await goodConfig(`first-${bad.name}`, await freePort());
      const file = await writeConfig(dir, { ...config, ...patchOf(bad) }, `first-${bad.name}.jsonc`);
      const result = await runCli(['start', '--config', file]);
      expect(result.code, bad.name).toBe(1);
      expect(result.stderr, bad.name).toContain(file);
      expect(result.stderr, bad.name).toContain(`${bad.path}: `);
    };
    await Promise.all(UNSTARTABLE.map(start));
  }, 120_000);

  it('a scheduled restart that fails and cannot go back exits 1, never 0', async () => {
    const port = await freePort();
    const { file, config } = await goodConfig('down', port);
    const gateway = spawnGateway(['start', '--config', file]);
    const url = await gateway.waitForReady();
    // The new config passes the check (its own state dir, a free-looking port) but its port is taken,
    // so its start fails; the old state dir is then a regular file, so going back fails too.
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const taken = (squatter.address() as { port: number }).port;
    try {
      const oldStateDir = String(config.stateDir);
      await writeFile(
        file,
        JSON.stringify({
          ...config,
          stateDir: path.join(dir, 'down-new-state'),
          http: { port: taken, token: PROCESS_TEST_TOKEN },
        }),
      );
      const answer = await sendMessage(url, '/restart onto a taken port');
      expect(answer.body.replies[0]?.text).toMatch(/^Restarting in/);
      await rename(oldStateDir, `${oldStateDir}-moved`);
      await writeFile(oldStateDir, 'not a directory any more\n');
      const status = await gateway.exited;
      expect(status).toEqual({ code: 1, signal: null });
      const messages = gateway.logLines().map((line) => String(line.msg));
      expect(messages).toContainEqual(
        expect.stringMatching(/^Restart failed: .*; running the last config that started again\.$/),
      );
      expect(messages).toContain('the last config that started failed to start too; nothing serves');
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  }, 120_000);
});
