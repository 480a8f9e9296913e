import { type CoreWebuiEntry, type Metric, metricLines } from './types.js';

const MAX_REPORT_CHARS = 20_000;
/** Submissions counted at most (the store pages them newest first). */
const MAX_COUNTED = 1000;

/**
 * `completion.report`: whether `completion.submit` was called, and the latest submission (agent,
 * time, path, report text cut at 20,000 characters), with how many there were. Suzumio reads the
 * submitted report file; here the report text is stored with the submission (`completion-records.ts`).
 */
export const completionReportEntry: CoreWebuiEntry = {
  id: 'completion.report',
  title: 'Completion report',
  description: 'The latest completion.submit: who submitted it, when, its path and its report.',
  kind: 'panel',
  async run(sources) {
    const latest = await sources.completions.latest();
    const submissions = latest ? await sources.completions.list({ limit: MAX_COUNTED }) : [];
    if (!latest) {
      const metrics: Metric[] = [{ label: 'Submit status', value: 'not submitted' }];
      return {
        title: 'Completion report',
        output: [...metricLines(metrics), 'No completion.submit report has been recorded.'].join('\n'),
        metadata: { metrics, submissions: 0 },
      };
    }
    const metrics: Metric[] = [
      {
        label: 'Submit status',
        value: 'submitted',
        description: `by ${latest.agentId} at ${latest.submittedAt}`,
      },
      {
        label: 'Submissions',
        value: submissions.length === MAX_COUNTED ? `${MAX_COUNTED}+` : submissions.length,
      },
      { label: 'Report chars', value: latest.report.length },
    ];
    const report =
      latest.report.length > MAX_REPORT_CHARS
        ? `${latest.report.slice(0, MAX_REPORT_CHARS)}\n\n[truncated ${latest.report.length - MAX_REPORT_CHARS} chars]`
        : latest.report;
    const path = latest.path ? [`Report path: ${latest.path}`] : [];
    return {
      title: 'Completion report',
      output: [...metricLines(metrics), ...path, '', report].join('\n'),
      metadata: {
        metrics,
        submissions: submissions.length,
        latest: { agentId: latest.agentId, submittedAt: latest.submittedAt, path: latest.path ?? null },
      },
    };
  },
};
