import type { Base } from './gateway-types.js';
import type { RestartNotes } from './host-ports.js';
import type { Part } from './part.js';
import type { Turns } from './turns-part.js';

/**
 * The gateway resumes what the last process left and serves: the approvals (before any turn
 * resumes, a call left waiting finds its request again), the sub-agents, the router's inbox
 * (messages accepted and not answered: a restart's drain, a crash), the scheduler tick (not in
 * safe mode), the host's restart notes. Its stop is the first: the drain.
 */
export function servingPart(): Part<
  { base: Base; turns: Turns; stopping: AbortSignal },
  RestartNotes | undefined
> {
  let turns: Turns | undefined;
  let notesLoop: Promise<void> | undefined;
  return {
    name: 'serving',
    async start(context) {
      const { base, stopping } = context;
      const { options } = base;
      turns = context.turns;
      await turns.approvals.start();
      await turns.subagents.resume();
      await turns.router.resume();
      // Safe mode runs no schedules (issue 32 §2).
      if (!options.safeMode) turns.scheduler.start();
      const notes = options.restartNotes?.({
        sessions: base.sessions,
        deliver: base.channels.deliver,
        logger: base.logger,
        signal: stopping,
      });
      notesLoop = notes?.run();
      options.onServing?.({ webchat: base.channels.webchat });
      return notes;
    },
    async stop() {
      await turns?.drain(notesLoop);
    },
  };
}
