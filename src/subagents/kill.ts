import { isActiveSubagentRun, type SubagentRun } from '../sessions/index.js';
import { latestRunPerChild } from '../tools/index.js';
import { KILLED_BY_REQUESTER, type ManagerContext } from './manager-context.js';
import { endWithoutTurn } from './run-end.js';

/**
 * Kills the run and every active run below its child (also below children that have ended), and
 * drops their queued messages. Returns the runs killed; one whose end was already decided is not
 * killed (it completed) and not returned. Only the run asked for is announced: nobody is left to
 * hear its descendants.
 */
export async function killRun(context: ManagerContext, run: SubagentRun): Promise<SubagentRun[]> {
  const current = (await context.registry.get(run.subagentRunId)) ?? run;
  const targets = [current, ...(await descendants(context, current))].filter(isActiveSubagentRun);
  const killed: SubagentRun[] = [];
  for (const target of targets) {
    const requested = target.subagentRunId === current.subagentRunId;
    const effect = context.states.kill(
      target.subagentRunId,
      requested ? 'requested' : 'with-ancestor',
      target.status === 'queued',
    );
    if (effect === 'skip') continue;
    killed.push(target);
    context.turns.clearQueue(target.childSessionKey);
    if (effect === 'cancel') await endWithoutTurn(context, target, 'killed', requested);
    else context.turns.stopTurn(target.childSessionKey, KILLED_BY_REQUESTER);
  }
  return killed;
}

/** The active runs below a child session, at any depth, also below children that have ended. */
async function descendants(context: ManagerContext, run: SubagentRun): Promise<SubagentRun[]> {
  const below = latestRunPerChild(await context.registry.byRequester(run.childSessionKey));
  const deeper = await Promise.all(below.map((child) => descendants(context, child)));
  return [...below.filter(isActiveSubagentRun), ...deeper.flat()];
}
