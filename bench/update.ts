import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startFakeOpenAIServer } from '../test/fakes/fake-openai-server.js';
import { freePort, makeTempDir, removeDir } from '../test/helpers/machine.js';
import {
  childEnvironment,
  killRunningChildren,
  PROCESS_TEST_TOKEN,
  pollUntil,
  runCommand,
  sendMessage,
  spawnGateway,
  writeConfig,
} from '../test/helpers/process.js';
import { git, makeUpdateWorld } from '../test/helpers/update-remote.js';
import { describeLoad, describeMachine, printFigures } from './report.js';

/**
 * Update benchmark (issue 31): the real gateway updated from a local bare remote, one small commit
 * (a docs file) each round, through `/update run`. Medians of `update check` (the CLI: fetch and
 * compare), the build (tsc incremental from the running dist, vite, the validator), the canary
 * (rehearsal copy + start to ready + /whoami), the switch (checkpoint, move, restart) and the
 * watch (ready with the new commit, then the window: 10 s here, 60 s by default). Not a test.
 */

const ROUNDS = 3;
const WATCH_MS = 10_000;

interface Run {
  id: string;
  phase: string;
  durations?: Record<string, number>;
}

async function main(): Promise<void> {
  console.log('Switchboard update bench: check, build, canary, switch and watch of one small commit.');
  console.log(
    `${describeMachine()}; ${ROUNDS} rounds; watch window ${WATCH_MS / 1000} s; node_modules reused (lockfile unchanged).`,
  );
  const dir = await makeTempDir('switchboard-update-bench-');
  const model = await startFakeOpenAIServer();
  try {
    const world = await makeUpdateWorld(dir);
    const stateDir = path.join(dir, 'state');
    const configPath = await writeConfig(dir, {
      stateDir,
      http: { port: await freePort(), token: PROCESS_TEST_TOKEN },
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url } },
      agents: { main: { model: 'fake' } },
      update: { watchMs: WATCH_MS },
    });
    const main = path.join(world.checkout, 'dist', 'main.js');
    const gateway = spawnGateway(['start', '--config', configPath], {
      cwd: world.checkout,
      main,
      env: childEnvironment(),
    });
    const url = await gateway.waitForReady();
    const rows: Record<string, number[]> = { check: [], build: [], canary: [], switch: [], watch: [] };
    let parent = world.base;
    for (let round = 1; round <= ROUNDS; round++) {
      parent = await world.push(parent, `bench round ${round}`, {
        'docs/update-bench.md': `round ${round}\n`,
      });
      const began = performance.now();
      await runCommand(process.execPath, [main, 'update', 'check', '--config', configPath], {
        cwd: world.checkout,
        env: childEnvironment(),
      });
      rows.check?.push(performance.now() - began);
      const answer = await sendMessage(url, '/update run');
      const runId = /\(run ([\w-]+)\)/.exec(answer.body.replies[0]?.text ?? '')?.[1];
      if (!runId) throw new Error(`/update run answered: ${answer.body.replies[0]?.text}`);
      const run = await pollUntil(
        `round ${round} to end`,
        async () => {
          const ledger = JSON.parse(await readFile(path.join(stateDir, 'update', 'ledger.json'), 'utf8')) as {
            run?: Run;
          };
          const current = ledger.run;
          return current?.id === runId &&
            ['done', 'failed', 'rolled-back', 'rollback-failed', 'interrupted'].includes(current.phase)
            ? current
            : undefined;
        },
        { timeoutMs: 600_000, intervalMs: 500 },
      );
      if (run.phase !== 'done') throw new Error(`round ${round} ended ${run.phase}`);
      const d = run.durations ?? {};
      const sum = (...names: string[]) => names.reduce((total, name) => total + (d[name] ?? 0), 0);
      rows.build?.push(sum('worktree', 'dependencies', 'build'));
      rows.canary?.push(sum('start-check', 'migration', 'rehearsal', 'canary'));
      rows.switch?.push(sum('checkpoint', 'switch', 'restart'));
      rows.watch?.push(sum('watch'));
      console.log(`  round ${round}: ${JSON.stringify(d)}`);
      parent = await git(world.checkout, 'rev-parse', 'HEAD');
    }
    printFigures(
      'update phases (ms)',
      Object.entries(rows).map(([label, values]) => ({ label, values })),
    );
    console.log(describeLoad());
    const pid = Number((await readFile(path.join(stateDir, 'gateway.pid'), 'utf8').catch(() => '')).trim());
    if (pid > 0) process.kill(pid, 'SIGKILL');
  } finally {
    await killRunningChildren();
    await model.close();
    await removeDir(dir);
  }
}

await main();
