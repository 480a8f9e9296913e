import type { NewTranscriptEntry, SubagentRun } from '../sessions/index.js';
import type { SteerDelivery } from '../tools/index.js';
import { ANNOUNCEMENT_SENDER } from './announcements.js';
import { addQueuedRun } from './child-runs.js';
import type { ManagerContext } from './manager-context.js';
import { FAILED_TURN, turnEndOf } from './types.js';

/**
 * Hands a message to a child: one waiting for a slot gets it with its task, a running one
 * before its next model call, and an ended one as a new run (announced again when it ends).
 */
export function deliverToChild(
  context: ManagerContext,
  current: SubagentRun,
  entry: NewTranscriptEntry,
  /** Who caused the message (a steer's caller): the new run of an ended child is charged to them. */
  chargedTo?: string,
): Promise<SteerDelivery> {
  return context.withRun(current.subagentRunId, async (): Promise<SteerDelivery> => {
    const latest = (await context.registry.get(current.subagentRunId)) ?? current;
    if (latest.status === 'queued') {
      // Stored with the run, so that a restart before its slot comes does not lose it.
      await context.registry.update({ ...latest, steers: [...(latest.steers ?? []), entry.text] });
      return { mode: 'injected', subagentRunId: latest.subagentRunId };
    }
    // A run recorded running whose end is decided (or that the last process left) gets a new run.
    const steered = context.states.steered(latest.subagentRunId);
    if (latest.status === 'running' && steered) {
      // Stored before it is handed over (the turn keeps it in memory only): a restart before it is
      // answered ends the run as interrupted, and the next start gives the stored steers a new run.
      await context.registry.update({ ...latest, steers: [...(latest.steers ?? []), entry.text] });
      const started = context.turns.startTurn({
        sessionKey: latest.childSessionKey,
        agentId: latest.agentId,
        route: { channel: 'internal', chatType: 'direct', chatId: latest.childSessionKey },
        entry,
        senderId: entry.senderId ?? ANNOUNCEMENT_SENDER,
        ...(latest.chargedTo === undefined ? {} : { chargedTo: latest.chargedTo }),
        agentOverrides: { model: latest.models ?? latest.model },
        depth: latest.depth,
        mode: 'steer',
      });
      steered.push(
        started
          .then(async ({ done }) => {
            const end = turnEndOf(await done);
            await forgetSteer(context, latest.subagentRunId, entry.text);
            return end;
          })
          .catch((error: unknown) => {
            context.logger.warn({ err: error, run: latest.subagentRunId }, 'steered message not answered');
            return FAILED_TURN;
          }),
      );
      await started;
      return { mode: 'injected', subagentRunId: latest.subagentRunId };
    }
    const next = nextRun(latest, entry, context.startTime(), chargedTo);
    await addQueuedRun(context, next);
    return { mode: 'restarted', subagentRunId: next.subagentRunId };
  });
}

/** A steer of a running run was answered: its stored copy goes (the first with its text). */
function forgetSteer(context: ManagerContext, subagentRunId: string, text: string): Promise<void> {
  return context.withRun(subagentRunId, async () => {
    const latest = await context.registry.get(subagentRunId);
    const steers = latest?.steers ?? [];
    const index = steers.indexOf(text);
    if (latest === undefined || latest.status !== 'running' || index < 0) return;
    const rest = steers.filter((_, at) => at !== index);
    const { steers: _answered, ...run } = latest;
    await context.registry.update(rest.length > 0 ? { ...run, steers: rest } : run);
  });
}

/** The run an ended child gets for a message: the message is its task. */
function nextRun(
  ended: SubagentRun,
  entry: NewTranscriptEntry,
  startedAt: number,
  chargedTo: string | undefined,
): SubagentRun {
  const { endedAt: _endedAt, runtimeMs: _runtimeMs, outcome: _outcome, steers: _steers, ...kept } = ended;
  return {
    ...kept,
    ...(chargedTo === undefined ? {} : { chargedTo }),
    subagentRunId: crypto.randomUUID(),
    task: entry.text,
    taskFrom: {
      role: entry.role === 'system' ? 'system' : 'user',
      senderId: entry.senderId ?? ANNOUNCEMENT_SENDER,
    },
    status: 'queued',
    startedAt,
  };
}
