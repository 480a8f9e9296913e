// Edit a job in place: its message, target and priority, and its time. The time is sent only when
// one of its fields changed (then it replaces the schedule, checked as a new one); blank is unchanged.
import { useState } from 'preact/hooks';
import type { RosterAgentView } from '../tools/tools-api.js';
import { BLANK, inputOf, ScheduleFields, type ScheduleValues, TIME_FIELDS } from './schedule-fields.js';
import type { ScheduledJob } from './schedules-api.js';

/** The form's starting values: the job as it is. */
function valuesOf(job: ScheduledJob): ScheduleValues {
  const { schedule } = job;
  const pad = (value: number | undefined) => String(value ?? 0).padStart(2, '0');
  return {
    ...BLANK,
    body: job.body,
    recipient: job.recipient ?? '',
    priority: job.priority,
    at: job.type === 'once' ? (schedule.at ?? job.nextAt ?? '') : '',
    cron: schedule.mode === 'cron' ? (schedule.cron ?? '') : '',
    everyMinutes: schedule.mode === 'interval' ? String((schedule.everyMs ?? 0) / 60_000) : '',
    weekday: schedule.mode === 'weekly' ? (schedule.weekday ?? '') : '',
    time: schedule.mode === 'weekly' ? `${pad(schedule.hour)}:${pad(schedule.minute)}` : '',
    timezone: schedule.mode === 'interval' ? '' : (schedule.timezone ?? ''),
  };
}

export function EditJobForm({
  job,
  roster,
  busy,
  onSave,
}: {
  job: ScheduledJob;
  roster: readonly RosterAgentView[];
  busy: boolean;
  onSave(input: Record<string, unknown>): void;
}) {
  const initial = valuesOf(job);
  const [values, setValues] = useState<ScheduleValues>(initial);
  const timeFields = TIME_FIELDS[job.type];
  return (
    <form
      class="schedule-form edit-job"
      aria-label="Edit scheduled message"
      onSubmit={(event) => {
        event.preventDefault();
        const timeChanged = timeFields.some((field) => values[field] !== initial[field]);
        const changed = (['body', 'recipient', 'priority'] as const).filter(
          (field) => values[field] !== initial[field],
        );
        onSave(inputOf(values, [...changed, ...(timeChanged ? timeFields : [])]));
      }}
    >
      <ScheduleFields
        kind={job.type}
        values={values}
        roster={roster}
        idPrefix={`edit-${job.id}`}
        onChange={setValues}
        bodyRequired={false}
      />
      <button type="submit" disabled={busy}>
        Save changes
      </button>
    </form>
  );
}
