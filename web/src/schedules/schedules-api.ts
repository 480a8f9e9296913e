// What the Schedules page reads and does: the scheduler toolpack's WebUI entries through the Tools
// API (`POST /api/projects/<project>/tool-ui/<toolpack>/<entry>`). The job is the toolpack's own
// record (its jobs.json entry, toolpacks/scheduler/README.md), not a gateway type.
import { loadEntries, type RosterAgentView, runEntry, type WebuiAnswer } from '../tools/tools-api.js';

/** One fire time: in the job's zone (the configured `scheduler.timezone` unless the job names one) and in UTC. */
export interface NextRun {
  utc: string;
  local: string;
  timezone: string;
}

/** One firing in a job's history (the last 20). */
export interface JobRun {
  at: string;
  state: 'pending' | 'delivered' | 'failed' | 'skipped' | 'sent';
  messageId?: string;
  deliveredAt?: string;
  error?: string;
}

export interface ScheduledJob {
  id: string;
  type: 'once' | 'recurring';
  status: 'active' | 'paused' | 'done' | 'failed' | 'cancelled';
  nextAt?: string;
  body: string;
  sender: string;
  recipient?: string;
  channel?: string;
  priority: string;
  sentCount?: number;
  lastError?: string;
  schedule: {
    mode?: 'interval' | 'weekly' | 'cron';
    everyMs?: number;
    weekday?: string;
    hour?: number;
    minute?: number;
    cron?: string;
    timezone?: string;
    at?: string;
    afterMs?: number;
  };
  nextRuns: NextRun[];
  runs?: JobRun[];
}

/** The scheduler toolpack's id in this project (the one that serves `schedule.jobs`), and the roster. */
export interface Scheduler {
  project: string;
  toolpack: string;
  roster: RosterAgentView[];
}

/** Finds the scheduler; undefined when no loaded toolpack has its entries. */
export async function findScheduler(project: string): Promise<Scheduler | undefined> {
  const { entries, roster } = await loadEntries(project);
  const jobs = entries.find((entry) => entry.id === 'schedule.jobs');
  return jobs ? { project, toolpack: jobs.toolpack, roster } : undefined;
}

/** Runs one of the scheduler's entries (`schedule.pause`, …) with `input`. */
export function runScheduler(
  scheduler: Scheduler,
  entry: string,
  input: Record<string, unknown>,
): Promise<WebuiAnswer> {
  return runEntry(
    scheduler.project,
    {
      toolpack: scheduler.toolpack,
      id: entry,
      title: entry,
      description: null,
      kind: 'action',
      inputSchema: null,
      submitLabel: null,
    },
    input,
  );
}

/** Every job, inactive ones included, as the toolpack lists them. */
export async function listJobs(scheduler: Scheduler): Promise<ScheduledJob[]> {
  const answer = await runScheduler(scheduler, 'schedule.jobs', { includeInactive: true });
  return ((answer.metadata as { jobs?: ScheduledJob[] } | undefined)?.jobs ?? []) as ScheduledJob[];
}
