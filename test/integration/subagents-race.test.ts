import { describe, expect, it } from 'vitest';
import { runSubagentsAction, type SubagentRun } from '../../src/engine/subagents/index.js';
import { announcementTurn, caller, type Rig, rig } from './subagents-rig.js';

/**
 * A kill that races a child's completion, with the interleaving forced by the rig's gates (where
 * the service learns of the turn's end, and where it writes it). Whichever comes first, the kill
 * result, the run record and the announcement tell one story: killed without a result, or
 * success with it.
 */

/** Spawns one child, waits for its turn to be open, and lets it reply and end. */
async function childThatAnswers(setup: Rig): Promise<SubagentRun> {
  const accepted = await setup.manager.spawn(caller, { task: 'count the files', label: 'counter' });
  if (!accepted.ok) throw new Error(accepted.error);
  await setup.gated.waitForOpen(1);
  setup.gated.releaseNext();
  const run = await setup.registry.get(accepted.value.subagentRunId);
  if (!run) throw new Error('no run');
  return run;
}

const kill = (setup: Rig) =>
  runSubagentsAction(setup.manager, caller, { action: 'kill', target: 'counter' }, Date.now());

describe('a kill racing a child that completes', () => {
  it('before the service hears the turn ended: killed, without the result, everywhere', async () => {
    const setup = await rig({ holdTurnEnd: true });
    const run = await childThatAnswers(setup);
    // The child's turn has replied and ended in its session queue; the service has not heard of it yet.
    await expect.poll(() => setup.router.sessionStatus(run.childSessionKey)).toBe('idle');
    const result = await kill(setup);
    setup.turnEnd.open(undefined);

    expect(result).toMatchObject({ status: 'ok', killed: 1, labels: ['counter'], text: 'killed counter.' });
    const said = await announcementTurn(setup);
    expect(said).toMatchObject({ status: 'killed', result: '', runId: run.subagentRunId });
    expect(await setup.registry.get(run.subagentRunId)).toMatchObject({
      status: 'killed',
      outcome: { status: 'killed', result: '' },
    });
  });

  it('after the service decided the run succeeded: success, with the result, everywhere', async () => {
    const setup = await rig({ holdEndWrite: true });
    const run = await childThatAnswers(setup);
    // The service is writing the run's end when the kill comes.
    await setup.endWrite.entered.promise;
    const result = await kill(setup);
    setup.endWrite.hold.open(undefined);

    expect(result).toMatchObject({
      status: 'ok',
      killed: 0,
      labels: [],
      text: 'counter is not running (it ended meanwhile).',
    });
    const said = await announcementTurn(setup);
    expect(said).toMatchObject({
      status: 'success',
      result: 'answered: count the files',
      runId: run.subagentRunId,
    });
    expect(await setup.registry.get(run.subagentRunId)).toMatchObject({
      status: 'done',
      outcome: { status: 'success', result: 'answered: count the files' },
    });
  });
});
