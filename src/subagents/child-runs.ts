import type { NewTranscriptEntry, SubagentRun } from '../sessions/index.js';
import type { ManagerContext } from './manager-context.js';
import { KILLED_BY_REQUESTER } from './manager-context.js';
import { endRun } from './run-end.js';
import { endedByTurn } from './run-ends.js';
import type { KillReason } from './run-states.js';
import { FAILED_TURN, type TurnEnd, turnEndOf } from './types.js';

/** Records a new queued run and queues it for a slot (its state first, so a kill finds it waiting). */
export async function addQueuedRun(context: ManagerContext, run: SubagentRun): Promise<void> {
  context.states.queue(run.subagentRunId);
  await context.registry.add(run).catch((error: unknown) => {
    context.states.end(run.subagentRunId);
    throw error;
  });
  context.launch(run);
}

/**
 * A run's life in this process, from its slot to its recorded end. The run's state must be
 * `queued` already (see `RunStates.queue`); one killed before its slot came does not start.
 */
export function launchRun(context: ManagerContext, run: SubagentRun): void {
  context.slots
    .add(async () => {
      if (!context.states.take(run.subagentRunId)) return;
      try {
        await runToEnd(context, run);
      } finally {
        context.states.end(run.subagentRunId);
      }
    })
    .catch((error: unknown) =>
      context.logger.error({ err: error, run: run.subagentRunId }, 'sub-agent run failed'),
    );
}

async function runToEnd(context: ManagerContext, run: SubagentRun): Promise<void> {
  const { states, turns } = context;
  let ended: { end: TurnEnd; killed: KillReason | undefined };
  try {
    const started = await startChildTurn(context, run);
    if (!started) return;
    // A kill that came between `starting` and the turn's start found no turn to stop: stop it now.
    if (states.killReason(run.subagentRunId)) turns.stopTurn(run.childSessionKey, KILLED_BY_REQUESTER);
    ended = await lastSteeredTurn(context, run.subagentRunId, turnEndOf(await started.done));
  } catch (error) {
    if (states.closing) return;
    context.logger.error({ err: error, run: run.subagentRunId }, 'sub-agent run failed to start');
    ended = { end: FAILED_TURN, killed: states.decideEnd(run.subagentRunId) };
  }
  const { end, killed } = ended;
  const turnRun = end.runId ? await context.runs.get(end.runId) : undefined;
  await endRun(
    context,
    run.subagentRunId,
    (latest) =>
      endedByTurn(latest, { end, wasKilled: killed !== undefined, turnRun, endedAt: context.now() }),
    killed !== 'with-ancestor',
  );
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
function startChildTurn(context: ManagerContext, run: SubagentRun) {
  return context.withRun(run.subagentRunId, async () => {
    const current = await context.registry.get(run.subagentRunId);
    if (context.states.closing || current?.status !== 'queued') return undefined;
    const entry = taskEntry(current);
    const started = await context.turns.startTurn({
      sessionKey: run.childSessionKey,
      agentId: run.agentId,
      route: { channel: 'internal', chatType: 'direct', chatId: run.childSessionKey },
      entry: { ...entry, text: [entry.text, ...(current.steers ?? [])].join('\n\n') },
      senderId: entry.senderId ?? `session:${run.requesterSessionKey}`,
      ...(current.chargedTo === undefined ? {} : { chargedTo: current.chargedTo }),
      agentOverrides: { model: run.models ?? run.model },
      depth: run.depth,
      ...(run.runTimeoutSeconds === undefined ? {} : { runTimeoutSeconds: run.runTimeoutSeconds }),
    });
    // Marked after the turn is queued: a run the stop kept from starting stays waiting.
    const { steers: _delivered, ...running } = current;
    await context.registry.update({ ...running, status: 'running' });
    context.states.running(run.subagentRunId);
    return started;
  });
}

/**
 * A steer the running turn took resolves with that turn; one that came too late (the turn was
 * giving its final answer, or had not started) runs a turn of its own after it. The run ends,
 * and is announced, with the last of these turns, so the answer to a steer is never lost. The end
 * is decided in the same step that finds no steer left to wait for.
 */
async function lastSteeredTurn(
  context: ManagerContext,
  subagentRunId: string,
  first: TurnEnd,
): Promise<{ end: TurnEnd; killed: KillReason | undefined }> {
  let last = first;
  // Steers may keep coming while earlier ones are answered: they join the same list.
  const waiting = context.states.steered(subagentRunId) ?? [];
  while (waiting.length > 0) {
    for (const steered of await Promise.all(waiting.splice(0))) {
      if (steered.runId !== undefined && steered.runId !== last.runId) last = steered;
    }
  }
  return { end: last, killed: context.states.decideEnd(subagentRunId) };
}
