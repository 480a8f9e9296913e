import type { TurnStatus } from '../../base/messages/index.js';
import { mainSessionKey } from '../../records/sessions/index.js';
import type { Signal } from './types.js';

/** Tools whose successful call in a wake turn is a useful effect (Suzumio's defaults). */
export const USEFUL_EFFECT_TOOLS: ReadonlySet<string> = new Set([
  'messages.send',
  'coordination.wait_for_signal',
  'completion.submit',
]);

export interface AgentActivityView {
  /**
   * Suzumio's agent states: `running` while any session of the agent has a turn, `failed` once its
   * last wake turn failed (until its next wake turn starts; a chat turn in between shows `running`
   * and leaves it `failed` after), else `quiet`.
   */
  state: 'quiet' | 'running' | 'failed';
  /** Since when it is in that state (ISO). */
  since: string;
  /** While `failed`: the wake turn that failed (its run id) and why. */
  failedTurnId?: string;
  error?: string;
}

/** How a wake turn ended, as the nudges read it. */
export interface WakeEnd {
  agentId: string;
  turnId: string;
  failed: boolean;
  /** Interrupted (a stop, an abort): neither failed nor finished, so nothing to nudge. */
  interrupted: boolean;
  /** Successful useful-effect tool calls and useful signals of the turn. */
  usefulEffects: number;
  /** The attempt of each scheduler nudge kind the turn was woken with (0: none). */
  nudgeAttempt(kind: string): number;
}

/** A failed wake turn: its run id, why, and when it ended (epoch ms). */
export interface AgentFailure {
  turnId: string;
  error: string;
  at: number;
}

interface Track {
  busy: boolean;
  /** When it last became idle (or the gateway started). */
  idleSince: number;
  failure?: AgentFailure;
  /** A wake turn started or ended in this process (a restored failure does not overwrite it). */
  touched?: boolean;
  wake?: { effects: number; nudges: Map<string, number> };
}

/**
 * Each agent's state and since-time, and the useful effects of its wake turn under way. The roster
 * read (`observe`) notices turns of other sessions starting and ending; the waker reports wake
 * turns (`wakeStarted`, `wakeEnded`); tool calls and recorded signals report effects (`effect`).
 * Held in memory; `failures`/`restoreFailure` let supervision-state.ts keep the failed agents.
 */
export function createAgentActivity(options: { agents: readonly string[]; now?: () => number }) {
  const now = options.now ?? Date.now;
  const tracks = new Map<string, Track>(options.agents.map((id) => [id, { busy: false, idleSince: now() }]));
  const view = (track: Track): AgentActivityView => {
    if (track.busy) return { state: 'running', since: new Date(track.idleSince).toISOString() };
    if (track.failure) {
      const { turnId, error, at } = track.failure;
      return { state: 'failed', since: new Date(at).toISOString(), failedTurnId: turnId, error };
    }
    return { state: 'quiet', since: new Date(track.idleSince).toISOString() };
  };
  return {
    /** The agent's state given whether it has a turn now; a change of `busy` moves its since-time. */
    observe(agentId: string, busy: boolean): AgentActivityView | undefined {
      const track = tracks.get(agentId);
      if (!track) return undefined;
      if (track.busy !== busy) {
        track.busy = busy;
        track.idleSince = now();
      }
      return view(track);
    },
    view(agentId: string): AgentActivityView | undefined {
      const track = tracks.get(agentId);
      return track ? view(track) : undefined;
    },
    /** The failed agents, to keep across a restart. */
    failures(): { agentId: string; failure: AgentFailure }[] {
      return [...tracks].flatMap(([agentId, track]) =>
        track.failure ? [{ agentId, failure: track.failure }] : [],
      );
    },
    /** Puts back a failure the last process kept, unless a wake turn of the agent started since. */
    restoreFailure(agentId: string, failure: AgentFailure): void {
      const track = tracks.get(agentId);
      if (track && !track.touched) track.failure = failure;
    },
    /** A wake turn started with these signals: it is `running`, its effects counted from 0. */
    wakeStarted(agentId: string, signals: readonly Signal[]): void {
      const track = tracks.get(agentId);
      if (!track) return;
      track.busy = true;
      track.touched = true;
      track.idleSince = now();
      delete track.failure;
      track.wake = { effects: 0, nudges: nudgeAttempts(signals) };
    },
    /**
     * Counts a useful effect of the agent's wake turn under way: `sessionKey` given (a tool call),
     * only one made in the agent's main session, where wake turns run.
     */
    effect(agentId: string, sessionKey?: string): void {
      const track = tracks.get(agentId);
      if (!track?.wake) return;
      if (sessionKey !== undefined && sessionKey !== mainSessionKey(agentId)) return;
      track.wake.effects += 1;
    },
    /** The wake turn ended: `quiet`, or `failed` when it did not end well (not interrupted by a stop). */
    wakeEnded(agentId: string, ended: { status?: TurnStatus; runId?: string; error?: string }): WakeEnd {
      const track = tracks.get(agentId) ?? { busy: false, idleSince: now() };
      const wake = track.wake ?? { effects: 0, nudges: new Map<string, number>() };
      delete track.wake;
      track.touched = true;
      track.busy = false;
      track.idleSince = now();
      const turnId = ended.runId ?? `wake_${crypto.randomUUID()}`;
      const failed = ended.status !== 'done' && ended.status !== 'interrupted';
      if (failed) track.failure = { turnId, error: ended.error ?? `turn ${ended.status}`, at: now() };
      return {
        agentId,
        turnId,
        failed,
        interrupted: ended.status === 'interrupted',
        usefulEffects: wake.effects,
        nudgeAttempt: (kind) => wake.nudges.get(kind) ?? 0,
      };
    },
  };
}

export type AgentActivity = ReturnType<typeof createAgentActivity>;

/** The `attempt` of each scheduler nudge among the signals (the highest, should several merge). */
function nudgeAttempts(signals: readonly Signal[]): Map<string, number> {
  const attempts = new Map<string, number>();
  for (const signal of signals) {
    if (!signal.kind.startsWith('scheduler.')) continue;
    for (const payload of signal.payloads ?? [signal.payload]) {
      const attempt = (payload as { attempt?: unknown } | undefined)?.attempt;
      const value =
        typeof attempt === 'number' && Number.isFinite(attempt) ? Math.max(1, Math.trunc(attempt)) : 1;
      attempts.set(signal.kind, Math.max(attempts.get(signal.kind) ?? 0, value));
    }
  }
  return attempts;
}
