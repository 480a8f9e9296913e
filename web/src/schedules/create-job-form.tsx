// A new scheduled message: once or recurring, through schedule.once / schedule.recurring. The
// toolpack's confirmation (its zone and next runs) or its refusal shows under the form.
import { useState } from 'preact/hooks';
import { problemText } from '../api.js';
import { BLANK, inputOf, ScheduleFields, type ScheduleValues, TIME_FIELDS } from './schedule-fields.js';
import { runScheduler, type Scheduler } from './schedules-api.js';

type Outcome = { state: 'none' } | { state: 'done'; text: string } | { state: 'failed'; problem: string };

export function CreateJobForm({ scheduler, onCreated }: { scheduler: Scheduler; onCreated(): void }) {
  const [kind, setKind] = useState<'once' | 'recurring'>('recurring');
  const [values, setValues] = useState<ScheduleValues>(BLANK);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>({ state: 'none' });

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      const input = inputOf(values, ['body', 'recipient', 'priority', ...TIME_FIELDS[kind]]);
      const answer = await runScheduler(
        scheduler,
        kind === 'once' ? 'schedule.once' : 'schedule.recurring',
        input,
      );
      setOutcome({ state: 'done', text: typeof answer.output === 'string' ? answer.output : 'Scheduled.' });
      setValues(BLANK);
      onCreated();
    } catch (error) {
      setOutcome({ state: 'failed', problem: problemText(error) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="create-job card" aria-labelledby="create-job-title">
      <h3 id="create-job-title">New scheduled message</h3>
      <form class="schedule-form" onSubmit={submit}>
        <fieldset class="field wide kind">
          <legend>Kind</legend>
          {(['recurring', 'once'] as const).map((choice) => (
            <label key={choice} class="inline">
              <input
                type="radio"
                name="kind"
                value={choice}
                checked={kind === choice}
                onChange={() => setKind(choice)}
              />{' '}
              {choice === 'once' ? 'Once' : 'Recurring'}
            </label>
          ))}
        </fieldset>
        <ScheduleFields
          kind={kind}
          values={values}
          roster={scheduler.roster}
          idPrefix="new-job"
          onChange={setValues}
          bodyRequired={true}
        />
        <button type="submit" disabled={busy}>
          Schedule
        </button>
      </form>
      <div class="job-outcome" aria-live="polite" aria-busy={busy ? 'true' : 'false'}>
        {outcome.state === 'done' ? <pre class="done">{outcome.text}</pre> : null}
        {outcome.state === 'failed' ? (
          <p class="error" role="alert">
            {outcome.problem}
          </p>
        ) : null}
      </div>
    </section>
  );
}
