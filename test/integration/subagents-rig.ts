import path from 'node:path';
import { validateConfig } from '../../src/base/config/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import { createTurnStream, type TurnRunner } from '../../src/engine/agents/index.js';
import { createRouter, type Router } from '../../src/engine/routing/index.js';
import {
  createSubagentManager,
  createSubagentRegistry,
  type SubagentManager,
  type SubagentRegistry,
} from '../../src/engine/subagents/index.js';
import type { GatewayControl } from '../../src/engine/tools/index.js';
import { createRunStore, createSessionStore, type RunStore } from '../../src/records/sessions/index.js';
import { createStore, type NamespaceOptions, type Store } from '../../src/records/store/index.js';
import { createGatedRunner } from '../fakes/gated-runner.js';
import { outboundTo } from '../fakes/outbound.js';
import { gate, parseAnnouncement } from '../fakes/subagent-script.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * The sub-agent service without a gateway, for interleavings a test must force: the real router,
 * session store, run store, run registry and SQLite store, a gated turn runner, and gates where
 * the service learns of a child turn's end, where it writes a run's end, and where it clears an
 * answered announcement. A gate that is never opened stands for the process dying there: `crash`
 * drops the rig without stopping it, and `rig({ dir })` starts the next one on the same store.
 * Importing it registers the cleanup after each test.
 */

export const PARENT = 'agent:main:webchat:direct:local';
export const caller = { sessionKey: PARENT, agentId: 'main' };
const cleanups = cleanupAfterEach();

export interface RigOptions {
  /** Reuse this state directory (a restart after `crash`). */
  dir?: string;
  holdTurnEnd?: boolean;
  holdEndWrite?: boolean;
  holdAnnouncementClear?: boolean;
}

export interface Rig {
  dir: string;
  store: Store;
  manager: SubagentManager;
  router: Router;
  registry: SubagentRegistry;
  runs: RunStore;
  gated: ReturnType<typeof createGatedRunner>;
  /** Holds the service's view of a child turn's end until opened. */
  turnEnd: ReturnType<typeof gate>;
  /** Holds the write of a run's end until opened; `entered` opens when the write is reached. */
  endWrite: { hold: ReturnType<typeof gate>; entered: ReturnType<typeof gate> };
  /** Holds the clearing of an answered announcement; `entered` opens when it is reached. */
  announcementClear: { hold: ReturnType<typeof gate>; entered: ReturnType<typeof gate> };
  /** What a start does: marks runs left running interrupted, then resumes the service. */
  start(): Promise<void>;
  /** The process dies: nothing is stopped or awaited; held writes never happen. */
  crash(): Promise<void>;
}

export async function rig(options: RigOptions = {}): Promise<Rig> {
  const dir = options.dir ?? (await makeTempDir('switchboard-subagents-rig-'));
  const { logger } = createLogger({ level: 'silent', destination: { write: () => {} } });
  const real = await createStore({ url: `sqlite://${path.join(dir, 'rig.sqlite')}`, stateDir: dir, logger });
  const announcementClear = { hold: gate(), entered: gate() };
  const store: Store = {
    kind: real.kind,
    location: real.location,
    close: () => real.close(),
    namespace<Value>(name: string, namespaceOptions?: NamespaceOptions<Value>) {
      const namespace = real.namespace<Value>(name, namespaceOptions);
      if (name !== 'subagent-announcements' || !options.holdAnnouncementClear) return namespace;
      return {
        ...namespace,
        async delete(key: string) {
          announcementClear.entered.open(undefined);
          await announcementClear.hold.promise;
          await namespace.delete(key);
        },
      };
    },
  };
  const checked = validateConfig({
    models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: 'http://127.0.0.1:9', apiKey: 'sk-x' } },
    agents: { main: { model: 'fake' } },
  });
  if (!checked.ok) throw new Error(JSON.stringify(checked.error));
  const config = checked.value;
  const sessions = createSessionStore({ store });
  const runs = createRunStore({ store });
  const gated = createGatedRunner();
  const turnEnd = gate();
  const endWrite = { hold: gate(), entered: gate() };
  const realRegistry = createSubagentRegistry({ store });
  const registry: SubagentRegistry = {
    ...realRegistry,
    async update(run) {
      if (options.holdEndWrite && run.status !== 'queued' && run.status !== 'running') {
        endWrite.entered.open(undefined);
        await endWrite.hold.promise;
      }
      await realRegistry.update(run);
    },
  };
  // The manager reaches the router's turns only once a test runs them (after both exist).
  const service = createSubagentManager({
    config,
    registry,
    sessions,
    runs,
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
  const router = createRouter({
    config,
    configFile: { path: undefined, hash: 'test' },
    store,
    sessions,
    runner: withRunRecords(gated.runner, runs),
    outboundFor: outboundTo({}),
    logger,
    startedAt: Date.now(),
    gateway: {} as GatewayControl,
    subagents: service,
  });
  await sessions.ensure(PARENT, {
    agentId: 'main',
    route: { channel: 'webchat', chatType: 'direct', chatId: 'local' },
  });
  let crashed = false;
  cleanups.push(async () => {
    if (!crashed) {
      endWrite.hold.open(undefined);
      turnEnd.open(undefined);
      announcementClear.hold.open(undefined);
      const closed = service.close();
      await router.close(100);
      await closed;
      await router.seal();
      await store.close();
    }
    if (!options.dir) await removeDir(dir);
  });
  return {
    dir,
    store,
    manager: service,
    router,
    registry,
    runs,
    gated,
    turnEnd,
    endWrite,
    announcementClear,
    async start() {
      await runs.markInterrupted();
      await router.resume();
      await service.resume();
    },
    async crash() {
      crashed = true;
      await real.close();
    },
  };
}

/** Keeps a run record per turn and tags what it writes with its run id, as the agent runner does. */
function withRunRecords(runner: TurnRunner, runs: RunStore): TurnRunner {
  return {
    runTurn(request, session) {
      return createTurnStream(async (emit) => {
        const run = await runs.start({
          sessionKey: request.sessionKey,
          agentId: request.agentId,
          model: 'fake',
        });
        const turn = runner.runTurn(request, {
          ...session,
          record: (entry) => session.record({ ...entry, runId: run.runId }),
        });
        // The inner turn's own start and end are this one's.
        for await (const event of turn)
          if (event.type !== 'turn_start' && event.type !== 'turn_end') await emit(event);
        const result = await turn.result;
        await runs.finish(run.runId, { status: result.status, rounds: 1, toolCalls: 0 });
        return { ...result, runId: run.runId };
      });
    },
  };
}

/** The announcement of the parent's latest turn (the gated runner opens it). */
export async function announcementTurn(setup: Rig): Promise<any> {
  await setup.gated.waitForOpen(1);
  return parseAnnouncement(setup.gated.turns.at(-1)?.messages[0]?.text ?? '');
}
