import type { NewTranscriptEntry, SubagentRun } from '../sessions/index.js';
import { ANNOUNCEMENT_SENDER } from './announcements.js';
import { addQueuedRun } from './child-runs.js';
import type { ManagerContext } from './manager-context.js';
import { FAILED_TURN, turnEndOf } from './types.js';

/** How a message reached a child: into its waiting or running run, or as a new run. */
export interface Delivery {
  mode: 'injected' | 'restarted';
  /** The run that gets the message. */
  runId: string;
}

/**
 * Hands a message to a child: one waiting for a slot gets it with its task, a running one
 * before its next model call, and an ended one as a new run (announced again when it ends).
 */
export function deliverToChild(
  context: ManagerContext,
  current: SubagentRun,
  entry: NewTranscriptEntry,
): Promise<Delivery> {
  return context.withRun(current.runId, async (): Promise<Delivery> => {
    const latest = (await context.registry.get(current.runId)) ?? current;
    if (latest.status === 'queued') {
      // Stored with the run, so that a restart before its slot comes does not lose it.
      await context.registry.update({ ...latest, steers: [...(latest.steers ?? []), entry.text] });
      return { mode: 'injected', runId: latest.runId };
    }
    // A run recorded running whose end is decided (or that the last process left) gets a new run.
    const steered = context.states.steered(latest.runId);
    if (latest.status === 'running' && steered) {
      const started = context.turns.startTurn({
        sessionKey: latest.childSessionKey,
        agentId: latest.agentId,
        route: { channel: 'internal', chatType: 'direct', chatId: latest.childSessionKey },
        entry,
        senderId: entry.senderId ?? ANNOUNCEMENT_SENDER,
        agentOverrides: { model: latest.model },
        depth: latest.depth,
        mode: 'steer',
      });
      steered.push(
        started
          .then(async ({ done }) => turnEndOf(await done))
          .catch((error: unknown) => {
            context.logger.warn({ err: error, run: latest.runId }, 'steered message not answered');
            return FAILED_TURN;
          }),
      );
      await started;
      return { mode: 'injected', runId: latest.runId };
    }
    const next = nextRun(latest, entry, context.now());
    await addQueuedRun(context, next);
    return { mode: 'restarted', runId: next.runId };
  });
}

/** The run an ended child gets for a message: the message is its task. */
function nextRun(ended: SubagentRun, entry: NewTranscriptEntry, startedAt: number): SubagentRun {
  const { endedAt: _endedAt, runtimeMs: _runtimeMs, outcome: _outcome, steers: _steers, ...kept } = ended;
  return {
    ...kept,
    runId: crypto.randomUUID(),
    task: entry.text,
    taskFrom: {
      role: entry.role === 'system' ? 'system' : 'user',
      senderId: entry.senderId ?? ANNOUNCEMENT_SENDER,
    },
    status: 'queued',
    startedAt,
  };
}
