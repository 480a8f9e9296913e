// Running one of the scheduler's entries from a form or a card: busy while it runs, then the
// toolpack's answer or its refusal, shown under the buttons (`.job-outcome`, `aria-live`; a refusal
// `role="alert"`).
import { useState } from 'preact/hooks';
import { problemText } from '../api.js';
import { runScheduler, type Scheduler } from './schedules-api.js';

type Outcome = { state: 'none' } | { state: 'done'; text: string } | { state: 'failed'; problem: string };

export interface SchedulerAction {
  busy: boolean;
  outcome: Outcome;
  /** Runs `entry` with `input`; `onDone` after an answer (not after a refusal). */
  run(entry: string, input: Record<string, unknown>, onDone: () => void): Promise<void>;
}

/** `doneText`: what shows when the answer carries no text of its own. */
export function useSchedulerAction(scheduler: Scheduler, doneText: string): SchedulerAction {
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>({ state: 'none' });
  const run = async (entry: string, input: Record<string, unknown>, onDone: () => void) => {
    setBusy(true);
    try {
      const answer = await runScheduler(scheduler, entry, input);
      setOutcome({ state: 'done', text: typeof answer.output === 'string' ? answer.output : doneText });
      onDone();
    } catch (error) {
      setOutcome({ state: 'failed', problem: problemText(error) });
    } finally {
      setBusy(false);
    }
  };
  return { busy, outcome, run };
}

/** The outcome under the buttons; `preformatted`: an answer of several lines (a new job's next runs). */
export function JobOutcome({ action, preformatted }: { action: SchedulerAction; preformatted?: boolean }) {
  const { busy, outcome } = action;
  return (
    <div class="job-outcome" aria-live="polite" aria-busy={busy ? 'true' : 'false'}>
      {outcome.state === 'done' ? (
        preformatted ? (
          <pre class="done">{outcome.text}</pre>
        ) : (
          <p class="done">{outcome.text}</p>
        )
      ) : null}
      {outcome.state === 'failed' ? (
        <p class="error" role="alert">
          {outcome.problem}
        </p>
      ) : null}
    </div>
  );
}
