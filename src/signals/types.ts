export const SIGNAL_PRIORITIES = ['P0', 'P1', 'P2', 'P3'] as const;
export type SignalPriority = (typeof SIGNAL_PRIORITIES)[number];

/** What a toolpack (runner, controller, scheduler hook) or `messages.send` records. */
export interface SignalInput {
  kind: string;
  targetAgent?: string;
  /** A named route (`routes` in config): the signal is posted there. */
  targetChannel?: string;
  priority?: SignalPriority;
  payload?: unknown;
  /** Without a target, a signal with a useful effect is kept as one; others are audit only. */
  usefulEffect?: string;
}

export interface Signal {
  id: string;
  kind: string;
  targetAgent?: string;
  targetChannel?: string;
  priority: SignalPriority;
  payload?: unknown;
  usefulEffect?: string;
  /** Who recorded it: `toolpack:<id>`, `agent:<id>`. */
  source: string;
  createdAt: string;
  /** How many pending signals of the same kind, target, priority and source were merged into this one. */
  merged: number;
  /** Once merged: every distinct payload, oldest first (`payload` is the newest). */
  payloads?: unknown[];
}
