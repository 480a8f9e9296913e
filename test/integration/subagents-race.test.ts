import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/logging/index.js';
import { createRouter, type Router } from '../../src/routing/index.js';
import {
  createRunStore,
  createSessionStore,
  createSubagentRegistry,
  type SubagentRegistry,
  type SubagentRun,
} from '../../src/sessions/index.js';
import { createStore, type Store } from '../../src/store/index.js';
import { createSubagentManager, type SubagentManager } from '../../src/subagents/index.js';
import type { GatewayControl } from '../../src/tools/index.js';
import { runSubagentsAction } from '../../src/tools/subagents/subagents-actions.js';
import { createGatedRunner } from '../fakes/gated-runner.js';
import { gate, parseAnnouncement } from '../fakes/subagent-script.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';

/**
 * A kill that races a child's completion, with the interleaving forced: the real router, session
 * store, run registry and SQLite store, a gated turn runner, and gates where the sub-agent service
 * learns of the turn's end and where it records it. Whichever comes first, the kill result, the
 * run record and the announcement tell one story: killed without a result, or success with it.
 */

const PARENT = 'agent:main:webchat:direct:local';
const caller = { sessionKey: PARENT, agentId: 'main' };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Rig {
  manager: SubagentManager;
  router: Router;
  registry: SubagentRegistry;
  gated: ReturnType<typeof createGatedRunner>;
  /** Holds the service's view of a child turn's end until opened. */
  turnEnd: ReturnType<typeof gate>;
  /** Holds the write of a run's end until opened; `entered` resolves when the write is reached. */
  endWrite: { hold: ReturnType<typeof gate>; entered: ReturnType<typeof gate> };
}

async function rig(options: { holdTurnEnd: boolean; holdEndWrite: boolean }): Promise<Rig> {
  const dir = await makeTempDir('switchboard-race-');
  const { logger } = createLogger({ level: 'silent', destination: { write: () => {} } });
  const store: Store = await createStore({
    url: `sqlite://${path.join(dir, 'race.sqlite')}`,
    stateDir: dir,
    logger,
  });
  const checked = validateConfig({
    models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: 'http://127.0.0.1:9', apiKey: 'sk-x' } },
    agents: { main: { model: 'fake' } },
  });
  if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
  const config = checked.config;
  const sessions = createSessionStore({ store });
  const gated = createGatedRunner();
  const turnEnd = gate();
  const endWrite = { hold: gate(), entered: gate() };
  const real = createSubagentRegistry({ store });
  const registry: SubagentRegistry = {
    ...real,
    async update(run) {
      if (options.holdEndWrite && run.status !== 'queued' && run.status !== 'running') {
        endWrite.entered.open(undefined);
        await endWrite.hold.promise;
      }
      await real.update(run);
    },
  };
  let manager: SubagentManager | undefined;
  const router = createRouter({
    config,
    configFile: { path: undefined, hash: 'test' },
    sessions,
    store,
    runner: gated.runner,
    deliver: async () => {},
    deliverDelta: () => {},
    logger,
    startedAt: Date.now(),
    gateway: {} as GatewayControl,
    subagents: () => manager as SubagentManager,
  });
  manager = createSubagentManager({
    config,
    registry,
    sessions,
    runs: createRunStore({ store }),
    turns: {
      async startTurn(request) {
        const started = await router.startTurn(request);
        if (!options.holdTurnEnd || request.sessionKey === PARENT) return started;
        return {
          done: started.done.then(async (result) => {
            await turnEnd.promise;
            return result;
          }),
        };
      },
      stopTurn: (key, reason) => router.stopTurn(key, reason),
      clearQueue: (key) => router.clearQueue(key),
    },
    store,
    logger,
  });
  await sessions.ensure(PARENT, {
    agentId: 'main',
    route: { channel: 'webchat', chatType: 'direct', chatId: 'local' },
  });
  const closing = manager;
  cleanups.push(async () => {
    endWrite.hold.open(undefined);
    turnEnd.open(undefined);
    const closed = closing.close();
    await router.close(100);
    await closed;
    await store.close();
    await removeDir(dir);
  });
  return { manager, router, registry, gated, turnEnd, endWrite };
}

/** Spawns one child, waits for its turn to be open, and lets it reply and end. */
async function childThatAnswers(setup: Rig): Promise<SubagentRun> {
  const accepted = await setup.manager.spawn(caller, { task: 'count the files', label: 'counter' });
  if (!('runId' in accepted)) throw new Error(JSON.stringify(accepted));
  await setup.gated.waitForOpen(1);
  setup.gated.releaseNext();
  const run = await setup.registry.get(accepted.runId);
  if (!run) throw new Error('no run');
  return run;
}

const kill = (setup: Rig) =>
  runSubagentsAction(setup.manager, caller, { action: 'kill', target: 'counter' }, Date.now());

/** The announcement turn the parent gets: the gated runner opens it. */
async function announcement(setup: Rig): Promise<any> {
  await setup.gated.waitForOpen(1);
  return parseAnnouncement(setup.gated.turns.at(-1)?.messages[0]?.text ?? '');
}

describe('a kill racing a child that completes', () => {
  it('before the service hears the turn ended: killed, without the result, everywhere', async () => {
    const setup = await rig({ holdTurnEnd: true, holdEndWrite: false });
    const run = await childThatAnswers(setup);
    // The child's turn has replied and ended in its lane; the service has not heard of it yet.
    await expect.poll(() => setup.router.sessionStatus(run.childSessionKey)).toBe('idle');
    const result = await kill(setup);
    setup.turnEnd.open(undefined);

    expect(result).toMatchObject({ status: 'ok', killed: 1, labels: ['counter'], text: 'killed counter.' });
    const said = await announcement(setup);
    expect(said).toMatchObject({ status: 'killed', result: '', runId: run.runId });
    expect(await setup.registry.get(run.runId)).toMatchObject({
      status: 'killed',
      outcome: { status: 'killed', result: '' },
    });
  });

  it('after the service decided the run succeeded: success, with the result, everywhere', async () => {
    const setup = await rig({ holdTurnEnd: false, holdEndWrite: true });
    const run = await childThatAnswers(setup);
    // The service is writing the run's end when the kill comes.
    await setup.endWrite.entered.promise;
    const result = await kill(setup);
    setup.endWrite.hold.open(undefined);

    expect(result).toMatchObject({
      status: 'ok',
      killed: 0,
      labels: [],
      text: 'counter is not running (it ended meanwhile).',
    });
    const said = await announcement(setup);
    expect(said).toMatchObject({ status: 'success', result: 'answered: count the files', runId: run.runId });
    expect(await setup.registry.get(run.runId)).toMatchObject({
      status: 'done',
      outcome: { status: 'success', result: 'answered: count the files' },
    });
  });
});
