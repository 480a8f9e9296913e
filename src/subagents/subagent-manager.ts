import { LRUCache } from 'lru-cache';
import PQueue from 'p-queue';
import { fail, ok } from '../errors/index.js';
import { childSessionKey, type SubagentRun, subagentDepth } from '../sessions/index.js';
import type { SpawnRequest, SpawnResult, SubagentCaller, SubagentsService } from '../tools/index.js';
import { createAnnouncer } from './announcer.js';
import { addQueuedRun, launchRun } from './child-runs.js';
import { deliverToChild } from './delivery.js';
import { killRun } from './kill.js';
import { createStartClock, type ManagerContext, type SubagentManagerOptions } from './manager-context.js';
import { resumeRuns } from './resume.js';
import { createRunLocks } from './run-locks.js';
import { createRunStates } from './run-states.js';
import { checkSpawn } from './spawn-policy.js';

export type { SubagentManagerOptions } from './manager-context.js';

const STEER_INTERVAL_MS = 2000;
/** How long past the drain a stop waits for announcement turns to end (a turn may ignore its abort). */
const SETTLE_GRACE_MS = 5000;

export interface SubagentManager extends SubagentsService {
  /**
   * At start: delivers announcements left unanswered, ends runs the last process left running as
   * interrupted, and queues again those it left waiting for a slot (with their steers).
   */
  resume(): Promise<void>;
  /**
   * At stop: queued children stay queued in the store (the next start runs them). Resolves once
   * the runs under way have ended and recorded their end and announcement, and the announcement
   * turns under way have ended: await it after the router has closed (which ends their turns) and
   * before the store closes.
   */
  close(): Promise<void>;
}

/**
 * Spawns sub-agents as turns in their own sessions, tracks them in the run registry, and
 * announces how each run ended into the session that spawned it. At most
 * `subagents.maxConcurrent` child runs run at once; the others wait (status `queued`).
 */
export function createSubagentManager(options: SubagentManagerOptions): SubagentManager {
  const { now: clock = Date.now, ...rest } = options;
  const context: ManagerContext = {
    ...rest,
    now: clock,
    startTime: createStartClock(clock),
    states: createRunStates(),
    withRun: createRunLocks(),
    slots: new PQueue({ concurrency: options.config.subagents.maxConcurrent }),
    announcer: createAnnouncer(options),
    launch: (run) => launchRun(context, run),
  };
  /** When each child session was last steered (a steer per 2 seconds per child). */
  const lastSteer = new LRUCache<string, number>({ max: 10_000 });
  return {
    spawn: (caller, request) => spawn(context, caller, request),
    runs: (sessionKey) => context.registry.byRequester(sessionKey),
    kill: (run) => killRun(context, run),
    async steer(caller, run, message) {
      if (caller.sessionKey === run.childSessionKey) return fail('A sub-agent cannot steer itself.');
      const last = lastSteer.get(run.childSessionKey);
      if (last !== undefined && context.now() - last < STEER_INTERVAL_MS) {
        return fail('Steered too recently: wait 2 seconds between messages to one sub-agent.');
      }
      lastSteer.set(run.childSessionKey, context.now());
      const current = (await context.registry.get(run.subagentRunId)) ?? run;
      const entry = { role: 'user' as const, text: message, senderId: `session:${caller.sessionKey}` };
      return ok(await deliverToChild(context, current, entry, caller.chargedTo));
    },
    resume: () => resumeRuns(context),
    async close() {
      context.states.close();
      context.announcer.close();
      context.slots.clear();
      await context.slots.onIdle();
      await context.announcer.settled(options.config.gateway.drainTimeoutMs + SETTLE_GRACE_MS);
    },
  };
}

async function spawn(
  context: ManagerContext,
  caller: SubagentCaller,
  request: SpawnRequest,
): Promise<SpawnResult> {
  const { registry, logger } = context;
  const checked = checkSpawn(context.config, caller, request, await registry.byRequester(caller.sessionKey));
  if (!checked.ok) return checked;
  const { agentId, model, models } = checked.value;
  const run: SubagentRun = {
    subagentRunId: crypto.randomUUID(),
    childSessionKey: childSessionKey(caller.sessionKey, agentId),
    requesterSessionKey: caller.sessionKey,
    ...(caller.runId === undefined ? {} : { parentRunId: caller.runId }),
    label: request.label?.trim() || request.task.trim().slice(0, 40),
    task: request.task,
    agentId,
    model,
    ...(models ? { models } : {}),
    depth: subagentDepth(caller.sessionKey) + 1,
    status: 'queued',
    startedAt: context.startTime(),
    taskFrom: { role: 'user', senderId: `session:${caller.sessionKey}` },
    ...(caller.chargedTo === undefined ? {} : { chargedTo: caller.chargedTo }),
    ...((request.announce ?? context.config.agents[agentId]?.announce) === false ? { announce: false } : {}),
    ...(request.runTimeoutSeconds === undefined ? {} : { runTimeoutSeconds: request.runTimeoutSeconds }),
  };
  await addQueuedRun(context, run);
  logger.info({ run: run.subagentRunId, child: run.childSessionKey, label: run.label }, 'sub-agent spawned');
  return ok({ subagentRunId: run.subagentRunId, childSessionKey: run.childSessionKey });
}
