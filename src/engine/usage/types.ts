/** Tokens and cost summed over model calls. */
export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  /** Model calls counted. */
  calls: number;
  /** At `models.<name>.price`; absent when no call counted here had a price. */
  cost?: number;
  /**
   * Of `calls`, those whose server reported no usage, counted with an estimate (about 4 characters
   * a token); absent when none was.
   */
  estimatedCalls?: number;
}

/** One model call's usage, as the agent runner reports it on each `model_end` (its `UsageCall` adds the run and session). */
export interface UsageCall {
  agentId: string;
  /** The turn's channel (`slack`, `discord`, `webchat`, `internal`). */
  channel: string;
  /** The sender of the message that started the turn (`system:signals` for the runtime). */
  senderId: string;
  /** `models.<name>` that answered. */
  model: string;
  inputTokens: number;
  outputTokens: number;
  /** `tokenCost(price, usage)`, absent when the model has no price. */
  cost?: number;
  /** The server reported no usage: the tokens are the provider's estimate (`TokenUsage.estimated`). */
  estimated?: boolean;
}

/** A day's totals of one agent, channel, user and model. */
export interface UsageCell extends UsageTotals {
  agentId: string;
  channel: string;
  /** A chat sender id, or `runtime` for turns nobody typed (signals, schedules, announcements). */
  userId: string;
  model: string;
}

/** One usage day (`YYYY-MM-DD` in `timeZone`): one stored value, every cell of that day. */
export interface UsageDay {
  day: string;
  timeZone: string;
  cells: UsageCell[];
}

export type UsagePeriod = 'today' | 'week';
export type UsageGrouping = 'agent' | 'channel' | 'user';

export const USAGE_PERIODS: readonly UsagePeriod[] = ['today', 'week'];
export const USAGE_GROUPINGS: readonly UsageGrouping[] = ['agent', 'channel', 'user'];

export interface UsageQuery {
  period: UsagePeriod;
  by: UsageGrouping;
  /** Only this sender's usage (a user who is not an owner sees their own). */
  userId?: string;
}

export interface UsageRow extends UsageTotals {
  /** The agent id, channel or user of this row. */
  name: string;
}

/** What `/usage` and `GET /api/usage` show: one row per agent, channel or user, most tokens first. */
export interface UsageReport {
  period: UsagePeriod;
  by: UsageGrouping;
  timeZone: string;
  /** The first and last usage day counted (`YYYY-MM-DD`); equal for `today`. */
  from: string;
  to: string;
  rows: UsageRow[];
  total: UsageTotals;
  /** Only this sender's usage was counted. */
  userId?: string;
}
