import type { Announcement } from './announcements.js';
import { deliverToChild } from './delivery.js';
import type { ManagerContext } from './manager-context.js';
import { endRun, endWithoutTurn } from './run-end.js';
import { endedFromAnnouncement } from './run-ends.js';

/**
 * At start: completes the runs whose announcement was stored but whose end was not written (the
 * process died between), delivers the announcements left unanswered, ends runs the last process
 * left running as interrupted, and queues again those it left waiting for a slot (with their steers).
 */
export async function resumeRuns(context: ManagerContext): Promise<void> {
  const { announcer, logger } = context;
  const items = await announcer.pendingItems();
  const stored = new Map<string, Announcement>(
    items.map((item) => [item.announcement.runId, item.announcement]),
  );
  const left = await context.registry.active();
  for (const run of left) {
    const announcement = stored.get(run.subagentRunId);
    if (announcement)
      await endRun(
        context,
        run.subagentRunId,
        (latest) => endedFromAnnouncement(latest, announcement),
        false,
      );
  }
  for (const item of items) await announcer.send(item);
  const rest = left.filter((run) => !stored.has(run.subagentRunId));
  // A run left running cannot go on; one left waiting for its slot never started: it takes one now.
  const interrupted = rest.filter((run) => run.status !== 'queued');
  for (const run of interrupted) {
    await endWithoutTurn(context, run, 'interrupted', true);
    // Steers it was sent while running and had not answered: the requester was told they reached
    // it, so they become the task of its next run (as a steer of an ended child does).
    if (run.steers !== undefined && run.steers.length > 0)
      await deliverToChild(context, run, {
        role: 'user',
        text: run.steers.join('\n\n'),
        senderId: `session:${run.requesterSessionKey}`,
      });
  }
  const waiting = rest.filter((run) => run.status === 'queued');
  for (const run of waiting.sort((first, second) => first.startedAt - second.startedAt)) {
    context.states.queue(run.subagentRunId);
    context.launch(run);
  }
  if (items.length + left.length > 0) {
    logger.info(
      { announcements: items.length, interrupted: interrupted.length, requeued: waiting.length },
      'sub-agents resumed after a stop',
    );
  }
}
