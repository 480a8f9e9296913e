import PQueue from 'p-queue';
import type { Config } from '../config/index.js';
import type { Logger } from '../logging/index.js';

import {
  childSessionKey,
  isActiveSubagentRun,
  type NewTranscriptEntry,
  type RunStore,
  type SessionStore,
  type SubagentRegistry,
  type SubagentRun,
  subagentDepth,
} from '../sessions/index.js';
import type { Store } from '../store/index.js';
import { latestRunPerChild, type SubagentsService } from '../tools/index.js';
import {
  ANNOUNCEMENT_SENDER,
  type Announcement,
  announcementFor,
  announcementText,
  createAnnouncer,
} from './announcements.js';
import { endedByTurn, endedFromAnnouncement, endedWithoutTurn } from './run-ends.js';
import { checkSpawn } from './spawn-policy.js';
import type { SubagentTurns, TurnReport } from './types.js';

const STEER_INTERVAL_MS = 2000;
const NO_REPLY = 'NO_REPLY';
/** How long past the drain a stop waits for announcement turns to end (a turn may ignore its abort). */
const SETTLE_GRACE_MS = 5000;

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
  const { registry, turns, logger, config } = options;
  const now = options.now ?? Date.now;
  const gate = new PQueue({ concurrency: config.subagents.maxConcurrent });
  const announcer = createAnnouncer({
    store: options.store,
    sessions: options.sessions,
    runs: options.runs,
    turns,
    logger,
  });
  /** Runs killed on request (they end `killed` whatever their turn says) … */
  const killed = new Set<string>();
  /** … and those killed with an ancestor, whose end nobody is left to hear. */
  const silenced = new Set<string>();
  /** Steers for children still waiting for a slot (also in their record), delivered with their task. */
  const waitingSteers = new Map<string, string[]>();
  /** The tail of each run's record writes (see `withRun`). */
  const locks = new Map<string, Promise<unknown>>();
  const lastSteer = new Map<string, number>();
  /** Queued runs killed before their slot came (their task must not start) … */
  const cancelled = new Set<string>();
  /** … and runs whose task has taken its slot and is starting. */
  const starting = new Set<string>();
  /** Runs whose end is decided and being recorded: a kill no longer reaches them. */
  const ending = new Set<string>();
  /** Per running run: the turns its steers went into (see `lastSteeredTurn`); absent once it ends. */
  const steerTurns = new Map<string, Promise<TurnReport>[]>();
  let closing = false;

  /** Runs `task` after every earlier task for the same run: each read-modify-write of its record. */
  function withRun<T>(runId: string, task: () => Promise<T>): Promise<T> {
    const next = (locks.get(runId) ?? Promise.resolve()).then(task, task);
    const tail = next.catch(() => {});
    locks.set(runId, tail);
    void tail.then(() => {
      if (locks.get(runId) === tail) locks.delete(runId);
    });
    return next;
  }

  /** The entry a run's first turn answers: its task, from whoever gave it. */
  function taskEntry(run: SubagentRun): NewTranscriptEntry {
    const from = run.taskFrom ?? { role: 'user', senderId: `session:${run.requesterSessionKey}` };
    return { role: from.role, text: run.task, senderId: from.senderId };
  }

  /**
   * Marks a run that took its slot `running` and starts its turn on its task and the steers it was
   * sent while waiting; undefined when it is no longer waiting. Holds the run's lock until the turn
   * is queued, so a steer either joins the task or reaches the started turn.
   */
  function startRun(run: SubagentRun) {
    return withRun(run.runId, async () => {
      const current = await registry.get(run.runId);
      if (closing || current?.status !== 'queued') return undefined;
      const steers = waitingSteers.get(run.runId) ?? current.steers ?? [];
      waitingSteers.delete(run.runId);
      const entry = taskEntry(current);
      const started = await turns.startTurn({
        sessionKey: run.childSessionKey,
        agentId: run.agentId,
        route: { channel: 'internal', chatType: 'direct', chatId: run.childSessionKey },
        entry: { ...entry, text: [entry.text, ...steers].join('\n\n') },
        senderId: entry.senderId ?? `session:${run.requesterSessionKey}`,
        agentOverrides: { model: run.model },
        depth: run.depth,
        ...(run.runTimeoutSeconds === undefined ? {} : { runTimeoutSeconds: run.runTimeoutSeconds }),
      });
      // Marked after the turn is queued: a run the stop kept from starting stays waiting.
      const { steers: _delivered, ...running } = current;
      await registry.update({ ...running, status: 'running' });
      steerTurns.set(run.runId, []);
      return started;
    });
  }

  function launch(run: SubagentRun): void {
    gate
      .add(async () => {
        if (closing || cancelled.delete(run.runId)) return;
        // From here a kill treats the run as running: the check after its turn starts stops it.
        starting.add(run.runId);
        let result: TurnReport;
        try {
          const started = await startRun(run);
          if (!started) return;
          // A kill that came between `running` and the turn's start finds no turn to stop: stop it now.
          if (killed.has(run.runId)) turns.stopTurn(run.childSessionKey, 'killed by its requester');
          result = await lastSteeredTurn(run.runId, await started.done);
        } catch (error) {
          steerTurns.delete(run.runId);
          if (closing) return;
          logger.error({ err: error, run: run.runId }, 'sub-agent run failed to start');
          result = { replies: [], status: 'error' };
        }
        // The one point where the run's end is decided, synchronously with `kill`'s check: a kill
        // before it makes the run `killed` (its result dropped), one after it finds the run ended.
        const wasKilled = killed.has(run.runId);
        ending.add(run.runId);
        await finish(run.runId, result, wasKilled).finally(() => ending.delete(run.runId));
      })
      .catch((error: unknown) => logger.error({ err: error, run: run.runId }, 'sub-agent run failed'))
      .finally(() => starting.delete(run.runId));
  }

  /**
   * A steer the running turn took resolves with that turn; one that came too late (the turn was
   * giving its final answer, or had not started) runs a turn of its own after it. The run ends,
   * and is announced, with the last of these turns, so the answer to a steer is never lost.
   */
  async function lastSteeredTurn(runId: string, result: TurnReport): Promise<TurnReport> {
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

  async function finish(runId: string, result: TurnReport, wasKilled: boolean): Promise<void> {
    const turnRun = result.runId ? await options.runs.get(result.runId) : undefined;
    const quiet = silenced.delete(runId);
    await endRun(
      runId,
      (latest) => endedByTurn(latest, { result, wasKilled, turnRun, endedAt: now() }),
      !quiet,
    );
    killed.delete(runId);
  }

  /**
   * Writes a run's end (`build` makes the ended record from the stored one) and, with `announce`,
   * tells its requester. An announcement for a chat session is stored before the end is written:
   * a crash between the two leaves the announcement, from which the next start completes the run.
   */
  async function endRun(
    runId: string,
    build: (latest: SubagentRun) => SubagentRun,
    announce: boolean,
  ): Promise<void> {
    const ended = await withRun(runId, async () => {
      const latest = await registry.get(runId);
      if (!latest || !isActiveSubagentRun(latest)) return undefined;
      const record = build(latest);
      const outcome = record.outcome;
      const heard = announce && outcome !== undefined && outcome.result.trim() !== NO_REPLY;
      const audience = heard ? await audienceOf(record) : undefined;
      const stored =
        audience === 'chat' && outcome
          ? await announcer.prepare(record.requesterSessionKey, announcementFor(record, outcome))
          : undefined;
      await registry.update(record);
      return { record, audience, stored };
    });
    if (ended?.stored) await announcer.send(ended.stored);
    else if (ended?.audience && ended.audience !== 'chat')
      await tellRequesterRun(ended.audience, ended.record);
  }

  /**
   * Hands a message to a child: one waiting for a slot gets it with its task, a running one
   * before its next model call, and an ended one as a new run (announced again when it ends).
   */
  function deliverToChild(
    current: SubagentRun,
    entry: NewTranscriptEntry,
  ): Promise<{ mode: 'injected' | 'restarted'; runId: string }> {
    return withRun(current.runId, async () => {
      const latest = (await registry.get(current.runId)) ?? current;
      if (latest.status === 'queued') {
        // Stored with the run, so that a restart before its slot comes does not lose it.
        const steers = [...(waitingSteers.get(latest.runId) ?? latest.steers ?? []), entry.text];
        waitingSteers.set(latest.runId, steers);
        await registry.update({ ...latest, steers });
        return { mode: 'injected' as const, runId: latest.runId };
      }
      const steering = steerTurns.get(latest.runId);
      // A run marked running but no longer waiting for steered turns is ending: it is restarted below.
      if (latest.status === 'running' && steering) {
        const started = turns.startTurn({
          sessionKey: latest.childSessionKey,
          agentId: latest.agentId,
          route: { channel: 'internal', chatType: 'direct', chatId: latest.childSessionKey },
          entry,
          senderId: entry.senderId ?? ANNOUNCEMENT_SENDER,
          agentOverrides: { model: latest.model },
          depth: latest.depth,
          mode: 'steer',
        });
        steering.push(
          started
            .then(({ done }) => done)
            .catch((error: unknown): TurnReport => {
              logger.warn({ err: error, run: latest.runId }, 'steered message not answered');
              return { replies: [], status: 'error' };
            }),
        );
        await started;
        return { mode: 'injected' as const, runId: latest.runId };
      }
      const next: SubagentRun = {
        ...latest,
        runId: crypto.randomUUID(),
        task: entry.text,
        taskFrom: {
          role: entry.role === 'system' ? 'system' : 'user',
          senderId: entry.senderId ?? ANNOUNCEMENT_SENDER,
        },
        status: 'queued',
        startedAt: now(),
      };
      delete next.endedAt;
      delete next.runtimeMs;
      delete next.outcome;
      delete next.steers;
      await registry.add(next);
      launch(next);
      return { mode: 'restarted' as const, runId: next.runId };
    });
  }

  /**
   * Who hears a child's end. A chat session (`chat`) gets a durable announcement that starts a
   * turn there; a sub-agent session's run gets it like a steer, so that its answer becomes part of
   * a run of its own and travels up in turn. A requester that was killed or interrupted hears nothing.
   */
  async function audienceOf(run: SubagentRun): Promise<'chat' | SubagentRun | undefined> {
    if (subagentDepth(run.requesterSessionKey) === 0) return 'chat';
    const requesterRun = await registry.latestByChild(run.requesterSessionKey);
    if (!requesterRun) return 'chat';
    const gone = requesterRun.status === 'killed' || requesterRun.status === 'interrupted';
    return gone ? undefined : requesterRun;
  }

  async function tellRequesterRun(requesterRun: SubagentRun, ended: SubagentRun): Promise<void> {
    if (!ended.outcome) return;
    await deliverToChild(requesterRun, {
      role: 'system',
      text: announcementText(announcementFor(ended, ended.outcome)),
      senderId: ANNOUNCEMENT_SENDER,
    }).catch((error: unknown) =>
      logger.warn({ err: error, run: ended.runId }, 'announcement to a sub-agent failed'),
    );
  }

  /** The active runs below a child session, at any depth, also below children that have ended. */
  async function descendants(run: SubagentRun): Promise<SubagentRun[]> {
    const below = latestRunPerChild(await registry.byRequester(run.childSessionKey));
    const deeper = await Promise.all(below.map(descendants));
    return [...below.filter(isActiveSubagentRun), ...deeper.flat()];
  }

  /** Ends a run that has no turn to end it (waiting for a slot, or left by the last process). */
  async function endWithoutTurn(run: SubagentRun, status: 'killed' | 'interrupted', announce: boolean) {
    await endRun(run.runId, (latest) => endedWithoutTurn(latest, status, now()), announce);
    waitingSteers.delete(run.runId);
  }

  return {
    async spawn(caller, request) {
      const checked = checkSpawn(config, caller, request, await registry.byRequester(caller.sessionKey));
      if (!checked.ok) return checked;
      const startedAt = now();
      const run: SubagentRun = {
        runId: crypto.randomUUID(),
        childSessionKey: childSessionKey(caller.sessionKey, checked.agentId),
        requesterSessionKey: caller.sessionKey,
        ...(caller.runId === undefined ? {} : { parentRunId: caller.runId }),
        label: request.label?.trim() || request.task.trim().slice(0, 40),
        task: request.task,
        agentId: checked.agentId,
        model: checked.model,
        depth: subagentDepth(caller.sessionKey) + 1,
        status: 'queued',
        startedAt,
        taskFrom: { role: 'user', senderId: `session:${caller.sessionKey}` },
        ...(request.runTimeoutSeconds === undefined ? {} : { runTimeoutSeconds: request.runTimeoutSeconds }),
      };
      await registry.add(run);
      logger.info({ run: run.runId, child: run.childSessionKey, label: run.label }, 'sub-agent spawned');
      launch(run);
      return { status: 'accepted', runId: run.runId, childSessionKey: run.childSessionKey };
    },

    runs: (sessionKey) => registry.byRequester(sessionKey),

    async kill(run) {
      const current = (await registry.get(run.runId)) ?? run;
      const targets = [current, ...(await descendants(current))].filter(isActiveSubagentRun);
      const done: SubagentRun[] = [];
      for (const target of targets) {
        // Its end is already decided (it completed): it is not killed, and not reported killed.
        if (ending.has(target.runId)) continue;
        done.push(target);
        killed.add(target.runId);
        // Only the run asked for is announced: nobody is left to hear its descendants.
        const announce = target.runId === current.runId;
        if (!announce) silenced.add(target.runId);
        turns.clearQueue(target.childSessionKey);
        if (target.status === 'queued' && !starting.has(target.runId)) {
          killed.delete(target.runId);
          silenced.delete(target.runId);
          cancelled.add(target.runId);
          await endWithoutTurn(target, 'killed', announce);
        } else {
          turns.stopTurn(target.childSessionKey, 'killed by its requester');
        }
      }
      return done;
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
      const items = await announcer.pendingItems();
      const stored = new Map(items.map((item) => [item.announcement.runId, item.announcement]));
      const left = await registry.active();
      // Ended, announcement stored, end not written (the process died between): completed from it.
      for (const run of left.filter((candidate) => stored.has(candidate.runId))) {
        const announcement = stored.get(run.runId) as Announcement;
        await endRun(run.runId, (latest) => endedFromAnnouncement(latest, announcement), false);
      }
      for (const item of items) await announcer.send(item);
      const rest = left.filter((run) => !stored.has(run.runId));
      // A run left running cannot go on; one left waiting for its slot never started: it takes one now.
      const interrupted = rest.filter((run) => run.status !== 'queued');
      for (const run of interrupted) await endWithoutTurn(run, 'interrupted', true);
      const waiting = rest.filter((run) => run.status === 'queued');
      for (const run of waiting.sort((left, right) => left.startedAt - right.startedAt)) launch(run);
      if (items.length + left.length > 0) {
        logger.info(
          { announcements: items.length, interrupted: interrupted.length, requeued: waiting.length },
          'sub-agents resumed after a stop',
        );
      }
    },

    async close() {
      closing = true;
      announcer.close();
      gate.clear();
      await gate.onIdle();
      await announcer.settled(config.gateway.drainTimeoutMs + SETTLE_GRACE_MS);
    },
  };
}
