// One scheduled job: what it sends to whom, its schedule, its next runs (zone and UTC), its last run,
// and its buttons. An action's answer (or refusal) shows in the card, under the buttons; Edit opens
// the form in place and History the job's runs.
import { useState } from 'preact/hooks';
import { EditJobForm } from './edit-job-form.js';
import { lastRun, scheduleText, targetText, utcText, wallText } from './job-text.js';
import type { ScheduledJob, Scheduler } from './schedules-api.js';
import { JobOutcome, useSchedulerAction } from './use-scheduler-action.js';

export function JobCard({
  job,
  scheduler,
  onChanged,
}: {
  job: ScheduledJob;
  scheduler: Scheduler;
  onChanged(): void;
}) {
  const action = useSchedulerAction(scheduler, 'Done.');
  const { busy } = action;
  const [editing, setEditing] = useState(false);
  const live = job.status === 'active' || job.status === 'paused';

  const act = (entry: string, input: Record<string, unknown> = {}) =>
    action.run(entry, { id: job.id, ...input }, () => {
      setEditing(false);
      onChanged();
    });
  const last = lastRun(job);
  const titleId = `job-${job.id}`;
  return (
    <li class={`job card ${job.status}`} data-job={job.id} aria-labelledby={titleId}>
      <div class="job-head">
        <h3 id={titleId} class="job-body">
          {job.body}
        </h3>
        <span class={`badge ${job.status}`}>{job.status}</span>
      </div>
      <dl class="job-facts">
        <dt>To</dt>
        <dd>
          {targetText(job)} · {job.priority} · from {job.sender}
        </dd>
        <dt>Schedule</dt>
        <dd>{scheduleText(job)}</dd>
        <dt>Next runs</dt>
        <dd>
          {job.nextRuns.length === 0 ? (
            <span class="muted">{job.status === 'paused' ? 'none while paused' : 'none'}</span>
          ) : (
            <ol class="next-runs">
              {job.nextRuns.map((run) => (
                <li key={run.utc}>
                  <time dateTime={run.utc}>
                    {wallText(run.local)} <span class="muted">{run.timezone}</span>
                  </time>
                  {run.timezone === 'UTC' ? null : <span class="utc muted"> = {utcText(run.utc)}</span>}
                </li>
              ))}
            </ol>
          )}
        </dd>
        <dt>Last run</dt>
        <dd>
          {last ? `${utcText(last.at)}: ${last.state}${last.error ? ` (${last.error})` : ''}` : 'never'} ·{' '}
          sent {job.sentCount ?? 0}
        </dd>
        <dt class="job-id-label">Id</dt>
        <dd class="job-id muted">{job.id}</dd>
      </dl>
      {job.lastError ? <p class="warn">Last error: {job.lastError}</p> : null}
      {live ? (
        <div class="job-actions">
          <button type="button" disabled={busy} onClick={() => void act('schedule.runNow')}>
            Send now
          </button>
          {job.status === 'paused' ? (
            <button type="button" disabled={busy} onClick={() => void act('schedule.resume')}>
              Resume
            </button>
          ) : (
            <button type="button" disabled={busy} onClick={() => void act('schedule.pause')}>
              Pause
            </button>
          )}
          <button type="button" disabled={busy} aria-expanded={editing} onClick={() => setEditing(!editing)}>
            Edit
          </button>
          <button
            type="button"
            class="danger"
            disabled={busy}
            onClick={() => {
              if (confirm(`Cancel this scheduled message?\n\n${job.body}`)) void act('schedule.cancel');
            }}
          >
            Cancel job
          </button>
        </div>
      ) : null}
      <JobOutcome action={action} />
      {editing ? (
        <EditJobForm
          job={job}
          roster={scheduler.roster}
          busy={busy}
          onSave={(input) => void act('schedule.edit', input)}
        />
      ) : null}
      <details class="history">
        <summary>Run history ({(job.runs ?? []).length})</summary>
        {(job.runs ?? []).length === 0 ? (
          <p class="muted">No runs yet.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">When (UTC)</th>
                <th scope="col">Outcome</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {[...(job.runs ?? [])].reverse().map((run, index) => (
                <tr key={`${run.at}-${index}`}>
                  <td>{utcText(run.at)}</td>
                  <td>{run.state}</td>
                  <td>
                    {run.error ??
                      (run.deliveredAt ? `delivered ${utcText(run.deliveredAt)}` : (run.messageId ?? ''))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </details>
    </li>
  );
}
