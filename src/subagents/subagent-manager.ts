import PQueue from 'p-queue';
import type { DispatchResult } from '../channels/index.js';
import type { Config } from '../config/index.js';
import type { Logger } from '../logging/index.js';
import {
  isActiveSubagentRun,
  type NewTranscriptEntry,
  type RunStore,
  type SessionStore,
  type SubagentOutcome,
  type SubagentRegistry,
  type SubagentRun,
  type SubagentRunStatus,
} from '../sessions/index.js';
import type { Store } from '../store/index.js';
import { latestRunPerChild, type SubagentsService } from '../tools/index.js';
import {
  ANNOUNCEMENT_SENDER,
  announcementFor,
  announcementText,
  createAnnouncer,
  depthOf,
} from './announcements.js';
import { checkSpawn, newChildSessionKey } from './spawn-policy.js';
import type { SubagentTurns } from './types.js';

const STEER_INTERVAL_MS = 2000;
const NO_REPLY = 'NO_REPLY';

export interface SubagentManagerOptions {
  config: Config;
  registry: SubagentRegistry;
  sessions: SessionStore;
  /** The turn runs, for a child's model rounds and tool calls. */
  runs: RunStore;
  turns: SubagentTurns;
  store: Store;
  logger: Logger;
  now?: () => number;
}

export interface SubagentManager extends SubagentsService {
  /** At start: marks runs the last process left active as interrupted, delivers pending announcements. */
  resume(): Promise<void>;
  /**
   * At stop: queued children stay queued in the store (the next start reports them interrupted).
   * Resolves once the runs under way have ended and recorded their end and announcement: await it
   * after the router has closed (which ends their turns) and before the store closes.
   */
  close(): Promise<void>;
}

/**
 * Spawns sub-agents as turns in their own sessions, tracks them in the run registry, and
 * announces how each run ended into the session that spawned it. At most
 * `subagents.maxConcurrent` child runs run at once; the others wait (status `queued`).
 */
export function createSubagentManager(options: SubagentManagerOptions): SubagentManager {
  const { registry, turns, logger, config } = options;
  const now = options.now ?? Date.now;
  const gate = new PQueue({ concurrency: config.subagents.maxConcurrent });
  const announcer = createAnnouncer({ store: options.store, sessions: options.sessions, turns, logger });
  /** Runs killed on request (they end `killed` whatever their turn says) … */
  const killed = new Set<string>();
  /** … and those killed with an ancestor, whose end nobody is left to hear. */
  const silenced = new Set<string>();
  /** Steers for children still waiting for a slot, delivered with their task. */
  const waitingSteers = new Map<string, string[]>();
  const lastSteer = new Map<string, number>();
  /** Queued runs killed before their slot came (their task must not start) … */
  const cancelled = new Set<string>();
  /** … and runs whose task has taken its slot and is starting. */
  const starting = new Set<string>();
  /** Per running run: the turns its steers went into (see `lastSteeredTurn`); absent once it ends. */
  const steerTurns = new Map<string, Promise<DispatchResult>[]>();
  let closing = false;

  function launch(run: SubagentRun, entry: NewTranscriptEntry): void {
    gate
      .add(async () => {
        if (closing || cancelled.delete(run.runId)) return;
        // From here a kill treats the run as running: the check after its turn starts stops it.
        starting.add(run.runId);
        const current = await registry.get(run.runId);
        if (closing || current?.status !== 'queued') return;
        steerTurns.set(run.runId, []);
        await registry.update({ ...current, status: 'running' });
        const steers = waitingSteers.get(run.runId) ?? [];
        waitingSteers.delete(run.runId);
        const text = [entry.text, ...steers].join('\n\n');
        let result: DispatchResult;
        try {
          const started = await turns.startTurn({
            sessionKey: run.childSessionKey,
            agentId: run.agentId,
            route: { channel: 'internal', chatType: 'direct', chatId: run.childSessionKey },
            entry: { ...entry, text },
            senderId: `session:${run.requesterSessionKey}`,
            agentOverrides: { model: run.model },
            depth: run.depth,
            ...(run.runTimeoutSeconds === undefined ? {} : { runTimeoutSeconds: run.runTimeoutSeconds }),
          });
          // A kill that came between `running` and the turn's start finds no turn to stop: stop it now.
          if (killed.has(run.runId)) turns.stopTurn(run.childSessionKey, 'killed by its requester');
          result = await lastSteeredTurn(run.runId, await started.done);
        } catch (error) {
          steerTurns.delete(run.runId);
          if (closing) return;
          logger.error({ err: error, run: run.runId }, 'sub-agent run failed to start');
          result = { sessionKey: run.childSessionKey, replies: [], status: 'error' };
        }
        await finish(run.runId, result);
      })
      .catch((error: unknown) => logger.error({ err: error, run: run.runId }, 'sub-agent run failed'))
      .finally(() => starting.delete(run.runId));
  }

  /**
   * A steer the running turn took resolves with that turn; one that came too late (the turn was
   * giving its final answer, or had not started) runs a turn of its own after it. The run ends,
   * and is announced, with the last of these turns, so the answer to a steer is never lost.
   */
  async function lastSteeredTurn(runId: string, result: DispatchResult): Promise<DispatchResult> {
    let last = result;
    // Steers may keep coming while earlier ones are answered: they join the same list.
    const waiting = steerTurns.get(runId) ?? [];
    while (waiting.length > 0) {
      for (const steered of await Promise.all(waiting.splice(0))) {
        if (steered.runId !== undefined && steered.runId !== last.runId) last = steered;
      }
    }
    steerTurns.delete(runId);
    return last;
  }

  async function finish(runId: string, result: DispatchResult): Promise<void> {
    const run = await registry.get(runId);
    if (!run || !isActiveSubagentRun(run)) return;
    const turnRun = result.runId ? await options.runs.get(result.runId) : undefined;
    const status: SubagentRunStatus = killed.has(runId) ? 'killed' : endStatus(result.status);
    const endedAt = now();
    const outcome: SubagentOutcome = {
      status: status === 'done' ? 'success' : (status as SubagentOutcome['status']),
      result: result.replies.at(-1)?.text ?? '',
      rounds: turnRun?.rounds ?? 0,
      toolCalls: turnRun?.toolCalls ?? 0,
      ...(status === 'error' || status === 'timeout' ? { error: turnRun?.outcome ?? status } : {}),
    };
    const ended: SubagentRun = { ...run, status, endedAt, runtimeMs: endedAt - run.startedAt, outcome };
    await registry.update(ended);
    killed.delete(runId);
    if (silenced.delete(runId) || outcome.result.trim() === NO_REPLY) return;
    await report(ended, outcome);
  }

  /**
   * Hands a message to a child: one waiting for a slot gets it with its task, a running one
   * before its next model call, and an ended one as a new run (announced again when it ends).
   */
  async function deliverToChild(
    current: SubagentRun,
    entry: NewTranscriptEntry,
  ): Promise<{ mode: 'injected' | 'restarted'; runId: string }> {
    if (current.status === 'queued') {
      waitingSteers.set(current.runId, [...(waitingSteers.get(current.runId) ?? []), entry.text]);
      return { mode: 'injected', runId: current.runId };
    }
    const steering = steerTurns.get(current.runId);
    // A run marked running but no longer waiting for steered turns is ending: it is restarted below.
    if (current.status === 'running' && steering) {
      const started = turns.startTurn({
        sessionKey: current.childSessionKey,
        agentId: current.agentId,
        route: { channel: 'internal', chatType: 'direct', chatId: current.childSessionKey },
        entry,
        senderId: entry.senderId ?? ANNOUNCEMENT_SENDER,
        agentOverrides: { model: current.model },
        depth: current.depth,
        mode: 'steer',
      });
      steering.push(
        started
          .then(({ done }) => done)
          .catch((error: unknown): DispatchResult => {
            logger.warn({ err: error, run: current.runId }, 'steered message not answered');
            return { sessionKey: current.childSessionKey, replies: [], status: 'error' };
          }),
      );
      await started;
      return { mode: 'injected', runId: current.runId };
    }
    const next: SubagentRun = {
      ...current,
      runId: crypto.randomUUID(),
      task: entry.text,
      status: 'queued',
      startedAt: now(),
    };
    delete next.endedAt;
    delete next.runtimeMs;
    delete next.outcome;
    await registry.add(next);
    launch(next, entry);
    return { mode: 'restarted', runId: next.runId };
  }

  /**
   * A child's end goes to its requester. A chat session gets a durable announcement that starts
   * a turn there; a sub-agent session gets it like a steer, so that its answer becomes part of a
   * run of its own and travels up in turn. A requester that was killed or interrupted hears nothing.
   */
  async function report(run: SubagentRun, outcome: SubagentOutcome): Promise<void> {
    const announcement = announcementFor(run, outcome);
    const requesterRun =
      depthOf(run.requesterSessionKey) > 0
        ? await registry.latestByChild(run.requesterSessionKey)
        : undefined;
    if (!requesterRun) {
      await announcer.announce(run.requesterSessionKey, announcement);
      return;
    }
    if (requesterRun.status === 'killed' || requesterRun.status === 'interrupted') return;
    await deliverToChild(requesterRun, {
      role: 'system',
      text: announcementText(announcement),
      senderId: ANNOUNCEMENT_SENDER,
    }).catch((error: unknown) =>
      logger.warn({ err: error, run: run.runId }, 'announcement to a sub-agent failed'),
    );
  }

  /** The active runs below a child session, at any depth. */
  async function descendants(run: SubagentRun): Promise<SubagentRun[]> {
    const below = latestRunPerChild(await registry.byRequester(run.childSessionKey)).filter(
      isActiveSubagentRun,
    );
    const deeper = await Promise.all(below.map(descendants));
    return [...below, ...deeper.flat()];
  }

  async function endQueued(run: SubagentRun, status: 'killed' | 'interrupted', announce: boolean) {
    const endedAt = now();
    const outcome: SubagentOutcome = { status, result: '', rounds: 0, toolCalls: 0 };
    const ended: SubagentRun = { ...run, status, endedAt, runtimeMs: endedAt - run.startedAt, outcome };
    await registry.update(ended);
    if (announce) await report(ended, outcome);
  }

  return {
    async spawn(caller, request) {
      const checked = checkSpawn(config, caller, request, await registry.byRequester(caller.sessionKey));
      if (!checked.ok) return checked;
      const startedAt = now();
      const run: SubagentRun = {
        runId: crypto.randomUUID(),
        childSessionKey: newChildSessionKey(caller.sessionKey, checked.agentId),
        requesterSessionKey: caller.sessionKey,
        ...(caller.runId === undefined ? {} : { parentRunId: caller.runId }),
        label: request.label?.trim() || request.task.trim().slice(0, 40),
        task: request.task,
        agentId: checked.agentId,
        model: checked.model,
        depth: depthOf(caller.sessionKey) + 1,
        status: 'queued',
        startedAt,
        ...(request.runTimeoutSeconds === undefined ? {} : { runTimeoutSeconds: request.runTimeoutSeconds }),
      };
      await registry.add(run);
      logger.info({ run: run.runId, child: run.childSessionKey, label: run.label }, 'sub-agent spawned');
      launch(run, { role: 'user', text: request.task, senderId: `session:${caller.sessionKey}` });
      return { status: 'accepted', runId: run.runId, childSessionKey: run.childSessionKey };
    },

    runs: (sessionKey) => registry.byRequester(sessionKey),

    async kill(run) {
      const current = (await registry.get(run.runId)) ?? run;
      const targets = [current, ...(await descendants(current))].filter(isActiveSubagentRun);
      for (const [index, target] of targets.entries()) {
        killed.add(target.runId);
        if (index > 0) silenced.add(target.runId);
        turns.clearQueue(target.childSessionKey);
        if (target.status === 'queued' && !starting.has(target.runId)) {
          killed.delete(target.runId);
          silenced.delete(target.runId);
          cancelled.add(target.runId);
          await endQueued(target, 'killed', index === 0);
        } else {
          turns.stopTurn(target.childSessionKey, 'killed by its requester');
        }
      }
      return targets;
    },

    async steer(caller, run, message) {
      if (caller.sessionKey === run.childSessionKey)
        return { ok: false, error: 'A sub-agent cannot steer itself.' };
      const last = lastSteer.get(run.childSessionKey);
      if (last !== undefined && now() - last < STEER_INTERVAL_MS) {
        return {
          ok: false,
          error: 'Steered too recently: wait 2 seconds between messages to one sub-agent.',
        };
      }
      lastSteer.set(run.childSessionKey, now());
      const current = (await registry.get(run.runId)) ?? run;
      const entry: NewTranscriptEntry = {
        role: 'user',
        text: message,
        senderId: `session:${caller.sessionKey}`,
      };
      return { ok: true, ...(await deliverToChild(current, entry)) };
    },

    async resume() {
      const delivered = await announcer.resume();
      const left = await registry.active();
      for (const run of left) await endQueued(run, 'interrupted', true);
      if (delivered + left.length > 0) {
        logger.info(
          { announcements: delivered, interrupted: left.length },
          'sub-agents resumed after a stop',
        );
      }
    },

    close() {
      closing = true;
      gate.clear();
      return gate.onIdle();
    },
  };
}

function endStatus(status: DispatchResult['status']): SubagentRunStatus {
  return status === undefined ? 'error' : status;
}
