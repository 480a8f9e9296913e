import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import { STUBBORN_SERVER } from '../helpers/mcp-servers.js';
import {
  killRunningChildren,
  PROCESS_TEST_TOKEN,
  pollUntil,
  spawnGateway,
  writeConfig,
} from '../helpers/process.js';

// A stdio MCP server that ignores the end of its input outlives a gateway killed by SIGKILL; the
// next start of the built gateway ends it (its recorded process group), and nothing else.

let dir: string;
const strays: number[] = [];

beforeAll(async () => {
  dir = await makeTempDir('switchboard-mcp-orphans-');
});

afterEach(async () => {
  await killRunningChildren();
  for (const pid of strays.splice(0)) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone: the test ended it.
    }
  }
});

afterAll(async () => {
  await removeDir(dir);
});

/** Running, and not a zombie (a reparented process that nobody has waited for yet is dead). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function startTime(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
}

describe('MCP servers across a SIGKILL of the gateway', () => {
  it('reaps the server a killed gateway left running, and not an unrelated process its record names', async () => {
    const stateDir = path.join(dir, 'state');
    const pidFile = path.join(dir, 'server.pid');
    const configPath = await writeConfig(dir, {
      stateDir,
      http: { port: await freePort(), token: PROCESS_TEST_TOKEN },
      mcp: {
        servers: { stubborn: { command: process.execPath, args: [STUBBORN_SERVER, '--pid-file', pidFile] } },
      },
    });
    const first = spawnGateway(['start', '--config', configPath]);
    await first.waitForReady();
    const serverPid = Number(
      await pollUntil('the MCP server to write its pid', () =>
        readFile(pidFile, 'utf8').catch(() => undefined),
      ),
    );
    strays.push(serverPid);
    const groups = path.join(stateDir, 'mcp-groups');
    await pollUntil('its process group recorded', async () =>
      (await readdir(groups).catch((): string[] => [])).includes(`${serverPid}.json`),
    );
    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // Its input ended with the gateway; it runs on.
    expect(alive(serverPid)).toBe(true);

    // An unrelated process whose pid a record names, with another command line (a reused pid).
    const unrelated = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' });
    const unrelatedPid = unrelated.pid ?? -1;
    strays.push(unrelatedPid);
    await mkdir(groups, { recursive: true });
    await writeFile(
      path.join(groups, `${unrelatedPid}.json`),
      JSON.stringify({
        owner: { pid: first.pid, start: '1', cmdline: 'node dist/main.js start' },
        leader: {
          pid: unrelatedPid,
          start: startTime(unrelatedPid),
          cmdline: `${process.execPath} some-mcp-server.js`,
        },
      }),
    );

    const second = spawnGateway(['start', '--config', configPath]);
    await second.waitForReady();
    await pollUntil('the leftover server to be ended', () => !alive(serverPid));
    expect(
      second.logLines().some((line) => line.msg === 'ended an MCP server a previous gateway left running'),
    ).toBe(true);
    expect(alive(unrelatedPid)).toBe(true);
    // The new gateway's own server runs, and its record is the only one left.
    const newPid = Number(
      await pollUntil('the new server to write its pid', async () => {
        const text = await readFile(pidFile, 'utf8');
        return Number(text) !== serverPid ? text : undefined;
      }),
    );
    strays.push(newPid);
    expect(alive(newPid)).toBe(true);
    await pollUntil('only the new record', async () => {
      const names = await readdir(groups);
      return names.length === 1 && names[0] === `${newPid}.json`;
    });
    second.child.kill('SIGTERM');
    await second.exited;
    // A graceful stop ends it (SIGTERM to its group after its input ended) and forgets its group.
    await pollUntil('the new server to be ended by the stop', () => !alive(newPid));
    expect(await readdir(groups)).toEqual([]);
  }, 120_000);
});
