import { LRUCache } from 'lru-cache';
import PQueue from 'p-queue';
import type { Config } from '../../base/config/index.js';
import { fail, ok } from '../../base/errors/index.js';
import type { Logger } from '../../base/logging/index.js';
import type { OutboundFor } from '../../base/messages/index.js';
import {
  childSessionKey,
  type NewTranscriptEntry,
  type RunStore,
  type SessionStore,
  subagentDepth,
  type TranscriptEntry,
} from '../../records/sessions/index.js';
import { createKeyQueue, type Store } from '../../records/store/index.js';
import { RESUMED_NOTICE } from '../agents/index.js';
import type {
  SpawnRequest,
  SpawnResult,
  SubagentCaller,
  SubagentsActionInput,
  SubagentsActionResult,
  SubagentsPort,
} from '../tools/index.js';
import { runSubagentsAction } from './actions.js';
import { ANNOUNCEMENT_SENDER, announcementFor, announcementText } from './announcements.js';
import { Announcer } from './announcer.js';
import { latestRunPerChild } from './list-view.js';
import { isActiveSubagentRun, type SubagentRegistry, type SubagentRun } from './registry.js';
import { resumeDecision, resumePlan } from './resume.js';
import { endedByTurn, endedFromAnnouncement, endedWithoutTurn, nextRun } from './run-ends.js';
import { createRunStates, type KillReason } from './run-states.js';
import { checkSpawn } from './spawn-policy.js';
import {
  FAILED_TURN,
  type SteerDelivery,
  type SteerResult,
  type SubagentsService,
  type SubagentTurns,
  type TurnEnd,
  type TurnReport,
  turnEndOf,
} from './types.js';

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
  /**
   * Each chat's `Outbound`: the "Resumed after a restart" of a sub-agent run a restart cut short
   * goes to the chat its requesters answer in. Absent, nothing is sent.
   */
  outboundFor?: OutboundFor;
}

/** How a run left running by the last process starts again: the entry its turn was answering. */
interface Resumed {
  /** The entry in the child's transcript; absent when the turn had not taken its task yet. */
  entry: TranscriptEntry | undefined;
}

/** How far back the child's transcript is read for the entry a resumed turn answers. */
const RECENT_ENTRIES = 50;

const STEER_INTERVAL_MS = 2000;
/** How long past the drain a stop waits for announcement turns to end (a turn may ignore its abort). */
const SETTLE_GRACE_MS = 5000;
const KILLED_BY_REQUESTER = 'killed by its requester';
const NO_REPLY = 'NO_REPLY';

/**
 * Spawns sub-agents as turns in their own sessions, tracks them in the run registry, and
 * announces how each run ended into the session that spawned it. At most
 * `subagents.maxConcurrent` child runs run at once; the others wait (status `queued`). Its state
 * (the run states, the per-run locks, the slots, the announcer) is its own: the store holds the
 * rest, and every record it builds comes from the pure functions of `run-ends.ts`.
 */
export class SubagentManager implements SubagentsService, SubagentsPort {
  readonly #options: SubagentManagerOptions;
  readonly #now: () => number;
  readonly #startTime: () => number;
  readonly #states = createRunStates();
  /** Per-run serial sections: a steer, a start and an end never interleave their writes. */
  readonly #locks = createKeyQueue();
  /** At most `subagents.maxConcurrent` child runs at once. */
  readonly #slots: PQueue;
  readonly #announcer: Announcer;
  /** When each child session was last steered (a steer per 2 seconds per child). */
  readonly #lastSteer = new LRUCache<string, number>({ max: 10_000 });

  constructor(options: SubagentManagerOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#startTime = createStartClock(this.#now);
    this.#slots = new PQueue({ concurrency: options.config.subagents.maxConcurrent });
    this.#announcer = new Announcer(options);
  }

  async spawn(caller: SubagentCaller, request: SpawnRequest): Promise<SpawnResult> {
    const { registry, config, logger } = this.#options;
    const checked = checkSpawn(config, caller, request, await registry.byRequester(caller.sessionKey));
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
      startedAt: this.#startTime(),
      taskFrom: { role: 'user', senderId: `session:${caller.sessionKey}` },
      ...(caller.chargedTo === undefined ? {} : { chargedTo: caller.chargedTo }),
      ...((request.announce ?? config.agents[agentId]?.announce) === false ? { announce: false } : {}),
      ...(request.runTimeoutSeconds === undefined ? {} : { runTimeoutSeconds: request.runTimeoutSeconds }),
    };
    await this.#addQueuedRun(run);
    logger.info(
      { run: run.subagentRunId, child: run.childSessionKey, label: run.label },
      'sub-agent spawned',
    );
    return ok({ subagentRunId: run.subagentRunId, childSessionKey: run.childSessionKey });
  }

  /** `list`, `kill` or `steer` on the caller's children (the `subagents` tool, `/subagents`, `/stop`). */
  act(caller: SubagentCaller, input: SubagentsActionInput): Promise<SubagentsActionResult> {
    return runSubagentsAction(this, caller, input, this.#now());
  }

  runs(sessionKey: string): Promise<SubagentRun[]> {
    return this.#options.registry.byRequester(sessionKey);
  }

  /**
   * Kills the run and every active run below its child (also below children that have ended), and
   * drops their queued messages. Returns the runs killed; one whose end was already decided is not
   * killed (it completed) and not returned. Only the run asked for is announced: nobody is left to
   * hear its descendants.
   */
  async kill(run: SubagentRun): Promise<SubagentRun[]> {
    const { registry, turns } = this.#options;
    const current = (await registry.get(run.subagentRunId)) ?? run;
    const targets = [current, ...(await this.#descendants(current))].filter(isActiveSubagentRun);
    const killed: SubagentRun[] = [];
    for (const target of targets) {
      const requested = target.subagentRunId === current.subagentRunId;
      const effect = this.#states.kill(
        target.subagentRunId,
        requested ? 'requested' : 'with-ancestor',
        target.status === 'queued',
      );
      if (effect === 'skip') continue;
      killed.push(target);
      turns.clearQueue(target.childSessionKey);
      if (effect === 'cancel') await this.#endWithoutTurn(target, 'killed', requested);
      else turns.stopTurn(target.childSessionKey, KILLED_BY_REQUESTER);
    }
    return killed;
  }

  async steer(caller: SubagentCaller, run: SubagentRun, message: string): Promise<SteerResult> {
    if (caller.sessionKey === run.childSessionKey) return fail('A sub-agent cannot steer itself.');
    const last = this.#lastSteer.get(run.childSessionKey);
    if (last !== undefined && this.#now() - last < STEER_INTERVAL_MS) {
      return fail('Steered too recently: wait 2 seconds between messages to one sub-agent.');
    }
    this.#lastSteer.set(run.childSessionKey, this.#now());
    const current = (await this.#options.registry.get(run.subagentRunId)) ?? run;
    const entry = { role: 'user' as const, text: message, senderId: `session:${caller.sessionKey}` };
    return ok(await this.#deliverToChild(current, entry, caller.chargedTo));
  }

  /**
   * At start: completes the runs whose announcement was stored but whose end was not written (the
   * process died between), delivers the announcements left unanswered, ends runs the last process
   * left running as interrupted, and queues again those it left waiting for a slot (with their steers).
   */
  async resume(): Promise<void> {
    const items = await this.#announcer.pendingItems();
    const left = await this.#options.registry.active();
    const plan = resumePlan(left, items);
    for (const { run, announcement } of plan.completed) {
      await this.#endRun(run.subagentRunId, (latest) => endedFromAnnouncement(latest, announcement), false);
    }
    for (const item of items) await this.#announcer.send(item);
    let resumed = 0;
    for (const run of plan.interrupted) {
      const notResumed = await this.#resumeRun(run);
      if (notResumed === undefined) {
        resumed += 1;
        continue;
      }
      await this.#endWithoutTurn(run, 'interrupted', true, notResumed);
      // Steers it was sent while running and had not answered: the requester was told they reached
      // it, so they become the task of its next run (as a steer of an ended child does).
      if (run.steers !== undefined && run.steers.length > 0)
        await this.#deliverToChild(run, {
          role: 'user',
          text: run.steers.join('\n\n'),
          senderId: `session:${run.requesterSessionKey}`,
        });
    }
    for (const run of plan.waiting) {
      this.#states.queue(run.subagentRunId);
      this.#launch(run);
    }
    if (items.length + left.length > 0) {
      this.#options.logger.info(
        {
          announcements: items.length,
          resumed,
          interrupted: plan.interrupted.length - resumed,
          requeued: plan.waiting.length,
        },
        'sub-agents resumed after a stop',
      );
    }
  }

  /**
   * A run the last process left running goes on from its child's transcript when `resumeDecision`
   * says so: its turn is started again on the entry it was answering (`resumed`: the calls its last
   * round left without a result are repeated when restart-safe, else told unknown), and the chat
   * hears "Resumed after a restart" once. When it is not resumed, why (the caller ends it).
   */
  async #resumeRun(run: SubagentRun): Promise<string | undefined> {
    const { config, sessions, registry, logger } = this.#options;
    const tail = await sessions.transcript(run.childSessionKey, { last: RECENT_ENTRIES });
    const last = tail.at(-1);
    const decision = resumeDecision(run, {
      agent: config.agents[run.agentId],
      lastEntryAt: last === undefined ? undefined : Date.parse(last.at),
      now: this.#now(),
      resumeWithinMs: config.agentLoop.resumeWithinMs,
    });
    if (decision.kind === 'end') {
      logger.warn({ run: run.subagentRunId, why: decision.why }, 'sub-agent run ended, not resumed');
      return decision.why;
    }
    const record: SubagentRun = { ...run, resumes: decision.resumes };
    await registry.update(record);
    const entry = tail.findLast((written) => written.role === 'user' || written.role === 'system');
    this.#states.queue(run.subagentRunId);
    this.#launch(record, { entry });
    logger.info(
      { run: run.subagentRunId, resumes: decision.resumes },
      'sub-agent run resumed after a restart',
    );
    await this.#tellChat(run, RESUMED_NOTICE);
    return undefined;
  }

  /** A line for the chat the run's requesters answer in (the first requester that is not a sub-agent). */
  async #tellChat(run: SubagentRun, text: string): Promise<void> {
    const { outboundFor, registry, sessions, logger } = this.#options;
    if (!outboundFor) return;
    let key = run.requesterSessionKey;
    for (let parent = await registry.latestByChild(key); parent; parent = await registry.latestByChild(key))
      key = parent.requesterSessionKey;
    const route = (await sessions.get(key))?.route;
    if (!route || route.channel === 'internal') return;
    await outboundFor(route)
      .reply({ id: crypto.randomUUID(), text, notice: true })
      .catch((error: unknown) =>
        logger.warn({ err: error, run: run.subagentRunId }, 'resumed line not delivered'),
      );
  }

  /**
   * At stop: queued children stay queued in the store (the next start runs them). Resolves once
   * the runs under way have ended and recorded their end and announcement, and the announcement
   * turns under way have ended: await it after the router has closed (which ends their turns) and
   * before the store closes.
   */
  async close(): Promise<void> {
    this.#states.close();
    this.#announcer.close();
    this.#slots.clear();
    await this.#slots.onIdle();
    await this.#announcer.settled(this.#options.config.gateway.drainTimeoutMs + SETTLE_GRACE_MS);
  }

  #withRun<T>(subagentRunId: string, task: () => Promise<T>): Promise<T> {
    return this.#locks.run(subagentRunId, task);
  }

  /** Records a new queued run and queues it for a slot (its state first, so a kill finds it waiting). */
  async #addQueuedRun(run: SubagentRun): Promise<void> {
    this.#states.queue(run.subagentRunId);
    await this.#options.registry.add(run).catch((error: unknown) => {
      this.#states.end(run.subagentRunId);
      throw error;
    });
    this.#launch(run);
  }

  /**
   * A run's life in this process, from its slot to its recorded end. The run's state must be
   * `queued` already (see `RunStates.queue`); one killed before its slot came does not start.
   */
  #launch(run: SubagentRun, resumed?: Resumed): void {
    this.#slots
      .add(async () => {
        if (!this.#states.take(run.subagentRunId)) return;
        try {
          await this.#runToEnd(run, resumed);
        } finally {
          this.#states.end(run.subagentRunId);
        }
      })
      .catch((error: unknown) =>
        this.#options.logger.error({ err: error, run: run.subagentRunId }, 'sub-agent run failed'),
      );
  }

  async #runToEnd(run: SubagentRun, resumed: Resumed | undefined): Promise<void> {
    const { turns, logger, runs } = this.#options;
    let ended: { end: TurnEnd; killed: KillReason | undefined };
    try {
      const started = await this.#startChildTurn(run, resumed);
      if (!started) return;
      // A kill that came between `starting` and the turn's start found no turn to stop: stop it now.
      if (this.#states.killReason(run.subagentRunId))
        turns.stopTurn(run.childSessionKey, KILLED_BY_REQUESTER);
      ended = await this.#lastSteeredTurn(run.subagentRunId, turnEndOf(await started.done));
    } catch (error) {
      if (this.#states.closing) return;
      logger.error({ err: error, run: run.subagentRunId }, 'sub-agent run failed to start');
      ended = { end: FAILED_TURN, killed: this.#states.decideEnd(run.subagentRunId) };
    }
    const { end, killed } = ended;
    const turnRun = end.runId ? await runs.get(end.runId) : undefined;
    await this.#endRun(
      run.subagentRunId,
      (latest) =>
        endedByTurn(latest, { end, wasKilled: killed !== undefined, turnRun, endedAt: this.#now() }),
      killed !== 'with-ancestor',
    );
  }

  /**
   * Marks a run that took its slot `running` and starts its turn on its task and the steers it was
   * sent while waiting; undefined when it is no longer waiting. Holds the run's lock until the turn
   * is queued, so a steer either joins the task or reaches the started turn. A `resumed` run (left
   * running by the last process) starts its turn again on the entry that turn was answering.
   */
  #startChildTurn(run: SubagentRun, resumed: Resumed | undefined) {
    const { registry, turns } = this.#options;
    return this.#withRun(run.subagentRunId, async () => {
      const current = await registry.get(run.subagentRunId);
      if (this.#states.closing || current?.status !== (resumed ? 'running' : 'queued')) return undefined;
      const from = current.taskFrom ?? { role: 'user', senderId: `session:${current.requesterSessionKey}` };
      const task = [current.task, ...(current.steers ?? [])].join('\n\n');
      const written = resumed?.entry;
      const started = await turns.startTurn({
        sessionKey: run.childSessionKey,
        agentId: run.agentId,
        route: { channel: 'internal', chatType: 'direct', chatId: run.childSessionKey },
        ...(written
          ? {
              entry: { role: written.role, text: written.text, senderId: from.senderId },
              appended: written,
              resumed: true,
            }
          : { entry: { role: from.role, text: task, senderId: from.senderId } }),
        senderId: from.senderId,
        ...(current.chargedTo === undefined ? {} : { chargedTo: current.chargedTo }),
        agentOverrides: { model: run.models ?? run.model },
        depth: run.depth,
        ...(run.runTimeoutSeconds === undefined ? {} : { runTimeoutSeconds: run.runTimeoutSeconds }),
      });
      // Marked after the turn is queued: a run the stop kept from starting stays waiting.
      const { steers: _delivered, ...running } = current;
      await registry.update({ ...running, status: 'running' });
      this.#states.running(run.subagentRunId);
      return started;
    });
  }

  /**
   * A steer the running turn took resolves with that turn; one that came too late (the turn was
   * giving its final answer, or had not started) runs a turn of its own after it. The run ends,
   * and is announced, with the last of these turns, so the answer to a steer is never lost. The end
   * is decided in the same step that finds no steer left to wait for.
   */
  async #lastSteeredTurn(
    subagentRunId: string,
    first: TurnEnd,
  ): Promise<{ end: TurnEnd; killed: KillReason | undefined }> {
    let last = first;
    // Steers may keep coming while earlier ones are answered: they join the same list.
    const waiting = this.#states.steered(subagentRunId) ?? [];
    while (waiting.length > 0) {
      for (const steered of await Promise.all(waiting.splice(0))) {
        if (steered.runId !== undefined && steered.runId !== last.runId) last = steered;
      }
    }
    return { end: last, killed: this.#states.decideEnd(subagentRunId) };
  }

  /**
   * Hands a message to a child: one waiting for a slot gets it with its task, a running one
   * before its next model call, and an ended one as a new run (announced again when it ends).
   * `chargedTo`: who caused the message (a steer's caller): the new run of an ended child is
   * charged to them.
   */
  #deliverToChild(
    current: SubagentRun,
    entry: NewTranscriptEntry,
    chargedTo?: string,
  ): Promise<SteerDelivery> {
    const { registry } = this.#options;
    return this.#withRun(current.subagentRunId, async (): Promise<SteerDelivery> => {
      const latest = (await registry.get(current.subagentRunId)) ?? current;
      if (latest.status === 'queued') {
        // Stored with the run, so that a restart before its slot comes does not lose it.
        await registry.update({ ...latest, steers: [...(latest.steers ?? []), entry.text] });
        return { mode: 'injected', subagentRunId: latest.subagentRunId };
      }
      // A run recorded running whose end is decided (or that the last process left) gets a new run.
      const steered = this.#states.steered(latest.subagentRunId);
      if (latest.status === 'running' && steered) {
        // Stored before it is handed over (the turn keeps it in memory only): a restart before it is
        // answered ends the run as interrupted, and the next start gives the stored steers a new run.
        await registry.update({ ...latest, steers: [...(latest.steers ?? []), entry.text] });
        const started = this.#startSteeredTurn(latest, entry);
        steered.push(this.#steeredTurnEnd(latest.subagentRunId, entry.text, started));
        await started;
        return { mode: 'injected', subagentRunId: latest.subagentRunId };
      }
      const next = nextRun(latest, entry, this.#startTime(), chargedTo);
      await this.#addQueuedRun(next);
      return { mode: 'restarted', subagentRunId: next.subagentRunId };
    });
  }

  /** Queues a steer into a running run's session. */
  #startSteeredTurn(run: SubagentRun, entry: NewTranscriptEntry) {
    return this.#options.turns.startTurn({
      sessionKey: run.childSessionKey,
      agentId: run.agentId,
      route: { channel: 'internal', chatType: 'direct', chatId: run.childSessionKey },
      entry,
      senderId: entry.senderId ?? ANNOUNCEMENT_SENDER,
      ...(run.chargedTo === undefined ? {} : { chargedTo: run.chargedTo }),
      agentOverrides: { model: run.models ?? run.model },
      depth: run.depth,
      mode: 'steer',
    });
  }

  /** How the turn a steer went into ended, once it did (its stored copy then goes); never rejects. */
  #steeredTurnEnd(
    subagentRunId: string,
    text: string,
    started: Promise<{ done: Promise<TurnReport> }>,
  ): Promise<TurnEnd> {
    return started
      .then(async ({ done }) => {
        const end = turnEndOf(await done);
        await this.#forgetSteer(subagentRunId, text);
        return end;
      })
      .catch((error: unknown) => {
        this.#options.logger.warn({ err: error, run: subagentRunId }, 'steered message not answered');
        return FAILED_TURN;
      });
  }

  /** A steer of a running run was answered: its stored copy goes (the first with its text). */
  #forgetSteer(subagentRunId: string, text: string): Promise<void> {
    const { registry } = this.#options;
    return this.#withRun(subagentRunId, async () => {
      const latest = await registry.get(subagentRunId);
      const steers = latest?.steers ?? [];
      const index = steers.indexOf(text);
      if (latest === undefined || latest.status !== 'running' || index < 0) return;
      const rest = steers.filter((_, at) => at !== index);
      const { steers: _answered, ...run } = latest;
      await registry.update(rest.length > 0 ? { ...run, steers: rest } : run);
    });
  }

  /**
   * Writes a run's end (`build` makes the ended record from the stored one) and, with `announce`,
   * tells its requester. An announcement for a chat session is stored before the end is written:
   * a crash between the two leaves the announcement, from which the next start completes the run.
   * A run that has already ended is left as it is.
   */
  async #endRun(
    subagentRunId: string,
    build: (latest: SubagentRun) => SubagentRun,
    announce: boolean,
  ): Promise<void> {
    const { registry } = this.#options;
    const ended = await this.#withRun(subagentRunId, async () => {
      const latest = await registry.get(subagentRunId);
      if (!latest || !isActiveSubagentRun(latest)) return undefined;
      const record = build(latest);
      const outcome = record.outcome;
      const heard =
        announce && latest.announce !== false && outcome !== undefined && outcome.result.trim() !== NO_REPLY;
      const audience = heard ? await this.#audienceOf(record) : undefined;
      const stored =
        audience === 'chat' && outcome
          ? await this.#announcer.prepare(
              record.requesterSessionKey,
              announcementFor(record, outcome),
              record.chargedTo,
            )
          : undefined;
      await registry.update(record);
      return { record, audience, stored };
    });
    if (ended?.stored) await this.#announcer.send(ended.stored);
    else if (ended?.audience && ended.audience !== 'chat')
      await this.#tellRequesterRun(ended.audience, ended.record);
  }

  /**
   * Ends a run that has no turn to end it (killed while waiting for a slot, or left by the last
   * process: `why` it was not resumed, for its announcement).
   */
  #endWithoutTurn(
    run: SubagentRun,
    status: 'killed' | 'interrupted',
    announce: boolean,
    why?: string,
  ): Promise<void> {
    return this.#endRun(
      run.subagentRunId,
      (latest) => endedWithoutTurn(latest, status, this.#now(), why),
      announce,
    );
  }

  /**
   * Who hears a child's end. A chat session (`chat`) gets a durable announcement that starts a
   * turn there; a sub-agent session's run gets it like a steer, so that its answer becomes part of
   * a run of its own and travels up in turn. A requester that was killed or interrupted hears nothing.
   */
  async #audienceOf(run: SubagentRun): Promise<'chat' | SubagentRun | undefined> {
    if (subagentDepth(run.requesterSessionKey) === 0) return 'chat';
    const requesterRun = await this.#options.registry.latestByChild(run.requesterSessionKey);
    if (!requesterRun) return 'chat';
    const gone = requesterRun.status === 'killed' || requesterRun.status === 'interrupted';
    return gone ? undefined : requesterRun;
  }

  async #tellRequesterRun(requesterRun: SubagentRun, ended: SubagentRun): Promise<void> {
    if (!ended.outcome) return;
    await this.#deliverToChild(requesterRun, {
      role: 'system',
      text: announcementText(announcementFor(ended, ended.outcome)),
      senderId: ANNOUNCEMENT_SENDER,
    }).catch((error: unknown) =>
      this.#options.logger.warn(
        { err: error, run: ended.subagentRunId },
        'announcement to a sub-agent failed',
      ),
    );
  }

  /** The active runs below a child session, at any depth, also below children that have ended. */
  async #descendants(run: SubagentRun): Promise<SubagentRun[]> {
    const below = latestRunPerChild(await this.#options.registry.byRequester(run.childSessionKey));
    const deeper = await Promise.all(below.map((child) => this.#descendants(child)));
    return [...below.filter(isActiveSubagentRun), ...deeper.flat()];
  }
}

export function createSubagentManager(options: SubagentManagerOptions): SubagentManager {
  return new SubagentManager(options);
}

/**
 * A new run's `startedAt`: `now`, but later than every start before it, so that the registry's
 * list by start time keeps spawn order when two spawns share a millisecond.
 */
function createStartClock(now: () => number): () => number {
  let last = Number.NEGATIVE_INFINITY;
  return () => {
    last = Math.max(now(), last + 1);
    return last;
  };
}
