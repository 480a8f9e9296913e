import type { Config } from '../../base/config/index.js';
import { type AgentMessage, type SendOutcome, USER_RECIPIENT } from '../../base/messages/index.js';
import type { AgentActivity, AgentActivityView } from './agent-activity.js';
import type { SchedulerAgent } from './scheduler.js';

type MonitorRule = Config['scheduler']['quietAgentMonitor']['rules'][number];

const QUIET_TEXT = 'Agent `{{agent}}` has been quiet for {{quietMinutes}} minutes.';
const FAILED_TEXT =
  'Agent `{{agent}}` has been failed for {{failedMinutes}} minutes after wake-up `{{activationId}}`.';
/** The longest `{{error}}` a template gets (whitespace folded). */
const MAX_ERROR_CHARS = 700;

export interface MonitorsOptions {
  scheduler: Config['scheduler'];
  project: string;
  activity: AgentActivity;
  /** The path of `messages.send`: a message from the rule's virtual sender. */
  send(message: AgentMessage): Promise<SendOutcome>;
  now?: () => number;
}

interface Episode {
  /** The quiet since-time or the failed turn the last message was about. */
  episode: string;
  lastAt: number;
  attempt: number;
}

/**
 * `quietAgentMonitor` and `failedAgentMonitor`: a message (a template) from a virtual sender to
 * the rule's recipient once the agent has been `quiet` (or `failed`) for `initialDelayMs`, then
 * every `repeatDelayMs` while the same quiet spell (the same failed wake turn) lasts. No agent is
 * created for the sender. A recipient that is neither `user` nor an agent skips the rule.
 */
export function createMonitors(options: MonitorsOptions) {
  const now = options.now ?? Date.now;
  const sent = new Map<string, Episode>();

  async function run(
    kind: 'quiet' | 'failed',
    rule: MonitorRule,
    index: number,
    agents: readonly SchedulerAgent[],
  ) {
    if (!rule.enabled) return;
    const view = options.activity.view(rule.agent);
    if (view?.state !== kind) return;
    if (rule.recipient !== USER_RECIPIENT && !agents.some((agent) => agent.id === rule.recipient)) return;
    const since = Date.parse(view.since);
    const at = now();
    const elapsed = at - since;
    if (!Number.isFinite(since) || elapsed < 0) return;
    const ruleKey = `${kind}:${rule.id ?? `${index}:${rule.agent}:${rule.sender}->${rule.recipient}`}`;
    const episode = kind === 'quiet' ? view.since : (view.failedTurnId ?? view.since);
    const last = sent.get(`${ruleKey}\n${rule.agent}`);
    const current = last?.episode === episode ? last : undefined;
    if (!current && elapsed < rule.initialDelayMs) return;
    if (current && at - current.lastAt < Math.max(1, rule.repeatDelayMs)) return;
    const attempt = (current?.attempt ?? 0) + 1;
    const values = templateValues(kind, {
      rule,
      ruleKey,
      view,
      at,
      elapsed,
      attempt,
      project: options.project,
    });
    const body = renderTemplate(rule.message ?? (kind === 'quiet' ? QUIET_TEXT : FAILED_TEXT), values);
    sent.set(`${ruleKey}\n${rule.agent}`, { episode, lastAt: at, attempt });
    await options.send({
      id: `msg_${crypto.randomUUID()}`,
      sender: rule.sender,
      recipient: rule.recipient,
      priority: rule.priority,
      body,
    });
  }

  return {
    /** Each tick, after the failed nudges: the failed-agent rules, then the quiet-agent rules. */
    async tick(agents: readonly SchedulerAgent[]): Promise<void> {
      const { failedAgentMonitor: failed, quietAgentMonitor: quiet } = options.scheduler;
      if (failed.enabled)
        for (const [index, rule] of failed.rules.entries()) await run('failed', rule, index, agents);
      if (quiet.enabled)
        for (const [index, rule] of quiet.rules.entries()) await run('quiet', rule, index, agents);
    },
  };
}

export type Monitors = ReturnType<typeof createMonitors>;

function templateValues(
  kind: 'quiet' | 'failed',
  input: {
    rule: MonitorRule;
    ruleKey: string;
    view: AgentActivityView;
    at: number;
    elapsed: number;
    attempt: number;
    project: string;
  },
): Record<string, string | number> {
  const { rule, view, elapsed } = input;
  const common = {
    project: input.project,
    agent: rule.agent,
    agentId: rule.agent,
    recipient: rule.recipient,
    sender: rule.sender,
    now: new Date(input.at).toISOString(),
    attempt: input.attempt,
    initialDelayMs: rule.initialDelayMs,
    repeatDelayMs: rule.repeatDelayMs,
    ruleId: rule.id ?? input.ruleKey.slice(kind.length + 1),
  };
  const minutes = Math.floor(elapsed / 60_000);
  if (kind === 'quiet') return { ...common, quietMs: elapsed, quietMinutes: minutes, quietSince: view.since };
  const error = (view.error ?? 'unknown failure').replace(/\s+/g, ' ').trim();
  return {
    ...common,
    failedMs: elapsed,
    failedMinutes: minutes,
    failedSince: view.since,
    activationId: view.failedTurnId ?? '',
    error: error.length <= MAX_ERROR_CHARS ? error : `${error.slice(0, MAX_ERROR_CHARS - 3)}...`,
  };
}

/** `{{name}}` (spaces allowed inside) replaced by its value; an unknown name is left as written. */
export function renderTemplate(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (match, key: string) =>
    Object.hasOwn(values, key) ? String(values[key]) : match,
  );
}
