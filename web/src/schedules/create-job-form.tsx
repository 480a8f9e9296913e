// A new scheduled message: once or recurring, through schedule.once / schedule.recurring. The
// toolpack's confirmation (its zone and next runs) or its refusal shows under the form.
import { useState } from 'preact/hooks';
import { BLANK, inputOf, ScheduleFields, type ScheduleValues, TIME_FIELDS } from './schedule-fields.js';
import type { Scheduler } from './schedules-api.js';
import { JobOutcome, useSchedulerAction } from './use-scheduler-action.js';

export function CreateJobForm({ scheduler, onCreated }: { scheduler: Scheduler; onCreated(): void }) {
  const [kind, setKind] = useState<'once' | 'recurring'>('recurring');
  const [values, setValues] = useState<ScheduleValues>(BLANK);
  const action = useSchedulerAction(scheduler, 'Scheduled.');
  const { busy } = action;

  const submit = async (event: Event) => {
    event.preventDefault();
    const input = inputOf(values, ['body', 'recipient', 'priority', ...TIME_FIELDS[kind]]);
    await action.run(kind === 'once' ? 'schedule.once' : 'schedule.recurring', input, () => {
      setValues(BLANK);
      onCreated();
    });
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
      <JobOutcome action={action} preformatted={true} />
    </section>
  );
}
