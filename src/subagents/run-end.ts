import { isActiveSubagentRun, type SubagentRun, subagentDepth } from '../sessions/index.js';
import { ANNOUNCEMENT_SENDER, announcementFor, announcementText } from './announcements.js';
import { deliverToChild } from './delivery.js';
import type { ManagerContext } from './manager-context.js';
import { endedWithoutTurn } from './run-ends.js';

const NO_REPLY = 'NO_REPLY';

/**
 * Writes a run's end (`build` makes the ended record from the stored one) and, with `announce`,
 * tells its requester. An announcement for a chat session is stored before the end is written:
 * a crash between the two leaves the announcement, from which the next start completes the run.
 * A run that has already ended is left as it is.
 */
export async function endRun(
  context: ManagerContext,
  subagentRunId: string,
  build: (latest: SubagentRun) => SubagentRun,
  announce: boolean,
): Promise<void> {
  const { announcer, registry } = context;
  const ended = await context.withRun(subagentRunId, async () => {
    const latest = await registry.get(subagentRunId);
    if (!latest || !isActiveSubagentRun(latest)) return undefined;
    const record = build(latest);
    const outcome = record.outcome;
    const heard =
      announce && latest.announce !== false && outcome !== undefined && outcome.result.trim() !== NO_REPLY;
    const audience = heard ? await audienceOf(context, record) : undefined;
    const stored =
      audience === 'chat' && outcome
        ? await announcer.prepare(
            record.requesterSessionKey,
            announcementFor(record, outcome),
            record.chargedTo,
          )
        : undefined;
    await registry.update(record);
    return { record, audience, stored };
  });
  if (ended?.stored) await announcer.send(ended.stored);
  else if (ended?.audience && ended.audience !== 'chat')
    await tellRequesterRun(context, ended.audience, ended.record);
}

/** Ends a run that has no turn to end it (killed while waiting for a slot, or left by the last process). */
export function endWithoutTurn(
  context: ManagerContext,
  run: SubagentRun,
  status: 'killed' | 'interrupted',
  announce: boolean,
): Promise<void> {
  return endRun(
    context,
    run.subagentRunId,
    (latest) => endedWithoutTurn(latest, status, context.now()),
    announce,
  );
}

/**
 * Who hears a child's end. A chat session (`chat`) gets a durable announcement that starts a
 * turn there; a sub-agent session's run gets it like a steer, so that its answer becomes part of
 * a run of its own and travels up in turn. A requester that was killed or interrupted hears nothing.
 */
async function audienceOf(
  context: ManagerContext,
  run: SubagentRun,
): Promise<'chat' | SubagentRun | undefined> {
  if (subagentDepth(run.requesterSessionKey) === 0) return 'chat';
  const requesterRun = await context.registry.latestByChild(run.requesterSessionKey);
  if (!requesterRun) return 'chat';
  const gone = requesterRun.status === 'killed' || requesterRun.status === 'interrupted';
  return gone ? undefined : requesterRun;
}

async function tellRequesterRun(context: ManagerContext, requesterRun: SubagentRun, ended: SubagentRun) {
  if (!ended.outcome) return;
  await deliverToChild(context, requesterRun, {
    role: 'system',
    text: announcementText(announcementFor(ended, ended.outcome)),
    senderId: ANNOUNCEMENT_SENDER,
  }).catch((error: unknown) =>
    context.logger.warn({ err: error, run: ended.subagentRunId }, 'announcement to a sub-agent failed'),
  );
}
