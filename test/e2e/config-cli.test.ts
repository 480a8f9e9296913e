import { cp, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hashConfigText, loadConfig, REDACTED, STALE_HASH_ERROR } from '../../src/base/config/index.js';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import {
  childEnvironment,
  killRunningChildren,
  PROCESS_TEST_TOKEN,
  REPO_ROOT,
  request,
  runCli,
  runCommand,
  spawnGateway,
} from '../helpers/process.js';

// `switchboard config get|patch` as an operator runs it: the built CLI, real files, exit codes.

const TOKEN = 'cli-test-token-0123456789abcdef';
const environment = childEnvironment({ CLI_TEST_TOKEN: TOKEN });

let dir: string;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-config-cli-');
});

afterEach(async () => {
  await killRunningChildren();
});

afterAll(async () => {
  await killRunningChildren();
  await removeDir(dir);
});

/** A config file with comments and a secret from the environment, in its own state dir. */
async function writeConfig(name: string): Promise<{ file: string; text: string; stateDir: string }> {
  const file = path.join(dir, `${name}.jsonc`);
  const stateDir = path.join(dir, `${name}-state`);
  const text = `// operator's notes stay
{
  "stateDir": ${JSON.stringify(stateDir)},
  "http": {
    "port": 8787, // the usual port
    "token": "\${CLI_TEST_TOKEN}"
  },
  "agents": { "main": { "displayName": "Main" } }
}
`;
  await writeFile(file, text);
  return { file, text, stateDir };
}

describe('switchboard config get', () => {
  it('prints the redacted file with its hash, or the value at a path', async () => {
    const { file, text } = await writeConfig('get');
    const all = await runCli(['config', 'get', '--config', file], { env: environment });
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout)).toEqual({
      path: file,
      hash: hashConfigText(text),
      config: {
        stateDir: expect.any(String),
        http: { port: 8787, token: REDACTED },
        agents: { main: { displayName: 'Main' } },
      },
    });
    expect(all.stdout).not.toContain(TOKEN);
    expect(all.stdout).not.toContain('CLI_TEST_TOKEN');

    const one = await runCli(['config', 'get', 'agents.main.displayName', '--config', file], {
      env: environment,
    });
    expect(one).toMatchObject({ code: 0, stdout: '"Main"\n' });

    const unknown = await runCli(['config', 'get', 'http.prot', '--config', file], { env: environment });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(
      'Unknown config path: http.prot (at "prot"; known keys here: host, port, trustProxy, token, users)',
    );
  });
});

describe('switchboard config patch', () => {
  it('patches from the current hash, keeps comments, and says how to restart', async () => {
    const { file, text, stateDir } = await writeConfig('patch');
    const result = await runCli(
      [
        'config',
        'patch',
        '{ http: { port: 9300 }, log: { level: "debug" } }',
        '--config',
        file,
        '--note',
        'cli test',
      ],
      { env: environment },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const written = await readFile(file, 'utf8');
    expect(written).toContain('"port": 9300, // the usual port');
    expect(written).toContain("// operator's notes stay");
    expect(written).toContain('"token": "${CLI_TEST_TOKEN}"');
    expect(result.stdout).toContain('changed: http.port, log');
    expect(result.stdout).toContain(`hash: ${hashConfigText(written)}`);
    // No gateway runs from this state dir: said with the file looked in, no `<pid>` to fill in (issue 33 item 8).
    expect(result.stdout).toContain(
      `No gateway runs from ${stateDir} now (no live pid in ${stateDir}/gateway.pid)`,
    );
    expect(result.stdout).not.toContain('<pid>');

    const audit = JSON.parse((await readFile(path.join(stateDir, 'config-audit.jsonl'), 'utf8')).trim());
    expect(audit).toMatchObject({ actor: 'cli', via: 'cli', action: 'config.patch', note: 'cli test' });
    const [backup] = await readdir(path.join(stateDir, 'config-backups'));
    expect(await readFile(path.join(stateDir, 'config-backups', backup ?? ''), 'utf8')).toBe(text);
  });

  it('may change owners and http (no protected paths from the shell)', async () => {
    const { file } = await writeConfig('owners');
    // Leaving out webchat:local, the operator, must be said (issue 33 item 8); doctor warns after.
    const refused = await runCli(['config', 'patch', '{"owners":["slack:U1"]}', '--config', file], {
      env: environment,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^owners would no longer include webchat:local, the operator/);
    const result = await runCli(
      ['config', 'patch', '{"owners":["slack:U1"]}', '--config', file, '--allow-operator-lockout'],
      { env: environment },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('changed: owners');
    const doctor = await runCli(['doctor', '--config', file], { env: environment });
    expect(doctor.stderr).toContain('warning: owners: webchat:local is not an owner');
  });

  it('merges toolpack entries by id; --replace replaces the array to remove one, and says what went', async () => {
    const file = path.join(dir, 'replace.jsonc');
    const stateDir = path.join(dir, 'replace-state');
    const plan = { path: path.join(REPO_ROOT, 'toolpacks/plan'), id: 'plan' };
    await writeFile(file, JSON.stringify({ stateDir, tools: { toolpacks: ['core', plan] } }));
    const merged = await runCli(['config', 'patch', '{"tools":{"toolpacks":["web"]}}', '--config', file], {
      env: environment,
    });
    expect(merged.code).toBe(0);
    expect(JSON.parse(await readFile(file, 'utf8')).tools.toolpacks).toEqual(['core', plan, 'web']);
    const replaced = await runCli(
      [
        'config',
        'patch',
        '{"tools":{"toolpacks":["core"]}}',
        '--replace',
        'tools.toolpacks',
        '--config',
        file,
      ],
      { env: environment },
    );
    expect(replaced.stderr).toBe('');
    expect(replaced.stdout).toContain('removed: tools.toolpacks[1], tools.toolpacks[2]');
    expect(JSON.parse(await readFile(file, 'utf8')).tools.toolpacks).toEqual(['core']);
  });

  it('exits 1 with the error on stderr when the patch is refused, leaving the file as it was', async () => {
    const { file, text } = await writeConfig('refused');
    const result = await runCli(['config', 'patch', '{"http":{"port":"high"}}', '--config', file], {
      env: environment,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('/http/port: must be integer');
    expect(result.stdout).toBe('');
    expect(await readFile(file, 'utf8')).toBe(text);
  });

  it('writes nothing when the patch changes nothing', async () => {
    const { file, text, stateDir } = await writeConfig('same');
    const result = await runCli(['config', 'patch', '{"http":{"port":8787}}', '--config', file], {
      env: environment,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('no change');
    expect(await readFile(file, 'utf8')).toBe(text);
    expect(await readdir(stateDir).catch(() => [])).toEqual([]);
  });
});

describe('the shell CLI and a running gateway editing one file at once', () => {
  it('80 CLI patches racing 80 gateway patches: every success is in the file, every loser is refused as stale', async () => {
    const stateDir = path.join(dir, 'race-state');
    const file = path.join(dir, 'race.jsonc');
    const port = await freePort();
    // commands.restart=false: the gateway writes each /config patch and does not restart.
    await writeFile(
      file,
      `${JSON.stringify({ stateDir, http: { port, token: PROCESS_TEST_TOKEN }, commands: { restart: false }, routes: {} }, null, 2)}\n`,
    );
    const gateway = spawnGateway(['start', '--config', file]);
    const url = await gateway.waitForReady();
    const count = 80;
    const route = (name: string) => JSON.stringify({ routes: { [name]: 'webchat:local' } });
    const cli = Array.from({ length: count }, async (_, index) => {
      const result = await runCli(['config', 'patch', route(`cli-${index}`), '--config', file], {
        env: childEnvironment(),
        // 80 processes at once on a shared machine: each may wait minutes for a core, not for the lock.
        timeoutMs: 400_000,
        // They race each other and the gateway; niced, they do not starve the test files beside them.
        nice: 19,
      });
      const won = result.code === 0 && result.stdout.includes(`changed: routes.cli-${index}`);
      const refusal = result.signal ? `killed (${result.signal}) after the timeout` : result.stderr.trim();
      return { name: `cli-${index}`, won, refusal: won ? '' : refusal };
    });
    const chat = Array.from({ length: count }, async (_, index) => {
      const response = await request<{ replies: { text: string }[] }>(url, 'POST', '/api/webchat/messages', {
        text: `/config patch ${route(`gw-${index}`)}`,
        thread: `race-${index}`,
      });
      const text = response.body.replies?.[0]?.text ?? `HTTP ${response.status}`;
      const won = text.startsWith(`Changed routes.gw-${index}.`);
      return { name: `gw-${index}`, won, refusal: won ? '' : text.replace(/^Refused: /, '') };
    });
    const outcomes = await Promise.all([...cli, ...chat]);
    const { config } = await loadConfig({ configPath: file, environment: {} });
    const winners = outcomes.filter((outcome) => outcome.won);
    const refusals = new Map<string, number>();
    for (const { won, refusal } of outcomes)
      if (!won) refusals.set(refusal, (refusals.get(refusal) ?? 0) + 1);
    const tally = {
      cliWon: winners.filter((outcome) => outcome.name.startsWith('cli-')).length,
      gatewayWon: winners.filter((outcome) => outcome.name.startsWith('gw-')).length,
      lost: winners.filter((outcome) => !(outcome.name in config.routes)).map((outcome) => outcome.name),
      refusals: Object.fromEntries(refusals),
    };
    // The figures for the record (the issue measured 51 lost CLI successes before the lock).
    console.info(`config race: ${JSON.stringify(tally)}`);
    expect(tally).toEqual({
      cliWon: expect.any(Number),
      gatewayWon: expect.any(Number),
      lost: [],
      refusals: refusals.size === 0 ? {} : { [STALE_HASH_ERROR]: expect.any(Number) },
    });
    expect(Object.keys(config.routes).sort()).toEqual(winners.map((outcome) => outcome.name).sort());
    expect(tally.cliWon + tally.gatewayWon).toBeGreaterThan(0);
  }, 480_000);
});

describe('the first CLI edit on built-in defaults', () => {
  it('writes the packaged toolpacks it relied on, relative to the config file, so doctor still lists them', async () => {
    // A fresh clone: the package without config/gateway.jsonc, run from its directory.
    const clone = path.join(dir, 'clone');
    await mkdir(clone, { recursive: true });
    for (const part of ['dist', 'toolpacks', 'package.json']) {
      await cp(path.join(REPO_ROOT, part), path.join(clone, part), { recursive: true });
    }
    await symlink(path.join(REPO_ROOT, 'node_modules'), path.join(clone, 'node_modules'));
    const run = (args: string[]) =>
      runCommand(process.execPath, [path.join(clone, 'dist/main.js'), ...args], {
        cwd: clone,
        env: childEnvironment(),
      });
    const before = await run(['doctor']);
    expect(before.stdout).toContain('toolpacks: core, scheduler (4 tools), plan (5 tools)');

    await run(['config', 'patch', '{"log":{"level":"debug"}}']);
    const written = JSON.parse(await readFile(path.join(clone, 'config/gateway.jsonc'), 'utf8'));
    expect(written).toEqual({
      tools: {
        toolpacks: [
          'core',
          { path: '../toolpacks/scheduler', id: 'scheduler' },
          { path: '../toolpacks/plan', id: 'plan' },
        ],
      },
      log: { level: 'debug' },
    });
    const after = await run(['doctor']);
    expect(after.stdout).toContain('toolpacks: core, scheduler (4 tools), plan (5 tools)');
    expect(after.stdout).toContain(`config: ${path.join(clone, 'config/gateway.jsonc')}`);
  });
});
