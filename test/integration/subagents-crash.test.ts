import { describe, expect, it } from 'vitest';
import { announcementTurn, caller, PARENT, type Rig, rig } from './subagents-rig.js';

/**
 * The process dies (a write that never happens, then a new rig on the same SQLite store) at the
 * two points where an announcement could be lost or doubled: after the run ended and its
 * announcement was stored but before its end was written, and after the parent's turn answered
 * the announcement but before it was cleared. Either way the next start announces it exactly once.
 */

async function spawnAndFinish(setup: Rig): Promise<string> {
  const accepted = await setup.manager.spawn(caller, { task: 'count the files', label: 'counter' });
  if (!accepted.ok) throw new Error(accepted.error);
  await setup.gated.waitForOpen(1);
  setup.gated.releaseNext();
  return accepted.value.subagentRunId;
}

const pendingAnnouncements = async (setup: Rig) => {
  const found: unknown[] = [];
  for await (const entry of setup.store.namespace('subagent-announcements').entries()) found.push(entry);
  return found;
};

describe('a crash while a sub-agent run ends', () => {
  it('between storing the announcement and writing the end: the next start completes the run from it, announced once', async () => {
    const first = await rig({ holdEndWrite: true });
    const runId = await spawnAndFinish(first);
    await first.endWrite.entered.promise;
    await first.crash();

    const second = await rig({ dir: first.dir });
    await second.start();
    expect(await second.registry.get(runId)).toMatchObject({
      status: 'done',
      outcome: { status: 'success', result: 'answered: count the files' },
    });
    expect(await announcementTurn(second)).toMatchObject({
      runId,
      status: 'success',
      result: 'answered: count the files',
    });
    second.gated.releaseNext();
    await expect.poll(() => pendingAnnouncements(second)).toEqual([]);
    // One announcement turn: none for an `interrupted` end.
    expect(second.gated.turns.filter((turn) => turn.sessionKey === PARENT)).toHaveLength(1);
  });

  it('after the parent answered the announcement, before it was cleared: the next start clears it, unanswered again', async () => {
    const first = await rig({ holdAnnouncementClear: true });
    const runId = await spawnAndFinish(first);
    expect(await announcementTurn(first)).toMatchObject({ runId, status: 'success' });
    first.gated.releaseNext();
    await first.announcementClear.entered.promise;
    await first.crash();

    const second = await rig({ dir: first.dir });
    await second.start();
    // Nothing queued for the parent: the answer it already gave stands.
    expect(second.router.sessionStatus(PARENT)).toBe('idle');
    expect(second.gated.turns).toHaveLength(0);
    expect(await pendingAnnouncements(second)).toEqual([]);
  });
});
