// The Schedules page: the scheduler toolpack's jobs with their next runs (in the job's zone, by
// default the configured scheduler.timezone, and in UTC), each with Send now, Pause or Resume, Edit,
// Cancel and its run history; and a form to create one. Everything goes through the toolpack's WebUI
// entries (schedules-api.ts); each answer is shown where its button is.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { problemText } from '../api.js';
import { useMe } from '../me.js';
import { CreateJobForm } from '../schedules/create-job-form.js';
import { JobCard } from '../schedules/job-card.js';
import { findScheduler, listJobs, type ScheduledJob, type Scheduler } from '../schedules/schedules-api.js';
import './schedules.css';

type Loaded =
  | { state: 'loading' }
  | { state: 'failed'; problem: string }
  | { state: 'none' }
  | { state: 'in'; scheduler: Scheduler; jobs: ScheduledJob[] };

const ACTIVE = new Set(['active', 'paused']);

export function SchedulesPage() {
  const { projectId } = useMe();
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  const [showEnded, setShowEnded] = useState(false);

  const reload = useCallback(
    async (known?: Scheduler) => {
      try {
        const scheduler = known ?? (await findScheduler(projectId));
        if (!scheduler) return setLoaded({ state: 'none' });
        setLoaded({ state: 'in', scheduler, jobs: await listJobs(scheduler) });
      } catch (error) {
        setLoaded({ state: 'failed', problem: `Could not load the schedules: ${problemText(error)}` });
      }
    },
    [projectId],
  );
  useEffect(() => {
    void reload();
  }, [reload]);

  const jobs = loaded.state === 'in' ? loaded.jobs : [];
  const current = jobs.filter((job) => ACTIVE.has(job.status));
  const ended = jobs.filter((job) => !ACTIVE.has(job.status));
  return (
    <section class="schedules-page" aria-labelledby="page-title" aria-busy={loaded.state === 'loading'}>
      <h2 id="page-title">Schedules</h2>
      <p class="muted" role="status">
        {loaded.state === 'loading' ? 'Loading…' : null}
        {loaded.state === 'in'
          ? `${current.length} scheduled, ${ended.length} ended · toolpack ${loaded.scheduler.toolpack}`
          : null}
      </p>
      {loaded.state === 'failed' ? <p role="alert">{loaded.problem}</p> : null}
      {loaded.state === 'none' ? (
        <p class="empty muted">
          No loaded toolpack serves scheduled messages: add <code>scheduler</code> to{' '}
          <code>tools.toolpacks</code> (see docs/schedules.md).
        </p>
      ) : null}
      {loaded.state === 'in' ? (
        <>
          <div class="schedules-toolbar">
            <button type="button" onClick={() => void reload(loaded.scheduler)}>
              Refresh
            </button>
            <label class="inline">
              <input
                type="checkbox"
                checked={showEnded}
                onChange={(event) => setShowEnded((event.target as HTMLInputElement).checked)}
              />{' '}
              Show ended jobs ({ended.length})
            </label>
          </div>
          {current.length === 0 ? <p class="empty muted">Nothing is scheduled.</p> : null}
          <ul class="jobs" aria-label="Scheduled messages">
            {(showEnded ? [...current, ...ended] : current).map((job) => (
              <JobCard
                key={job.id}
                job={job}
                scheduler={loaded.scheduler}
                onChanged={() => void reload(loaded.scheduler)}
              />
            ))}
          </ul>
          <CreateJobForm scheduler={loaded.scheduler} onCreated={() => void reload(loaded.scheduler)} />
        </>
      ) : null}
    </section>
  );
}
