import type { Priority } from '../../base/messages/index.js';

/** The kind of the signal a message to an agent becomes (Suzumio's name). */
export const MESSAGE_SIGNAL_KIND = 'message.created';

/** What a toolpack (runner, controller, scheduler hook) or `messages.send` records. */
export interface SignalInput {
  kind: string;
  targetAgent?: string;
  /** A named route (`routes` in config): the signal is posted there. */
  targetChannel?: string;
  priority?: Priority;
  payload?: unknown;
  /** Without a target, a signal with a useful effect is kept as one; others are audit only. */
  usefulEffect?: string;
}

export interface Signal {
  id: string;
  kind: string;
  targetAgent?: string;
  targetChannel?: string;
  priority: Priority;
  payload?: unknown;
  usefulEffect?: string;
  /** Who recorded it: `toolpack:<id>`, `agent:<id>`. */
  source: string;
  /**
   * The chat sender who caused it (a `messages.send` in their turn): the wake turn that delivers it
   * is charged to them. Set by the gateway only (never from a `SignalInput`).
   */
  chargedTo?: string;
  createdAt: string;
  /** How many pending signals of the same kind, target, priority and source were merged into this one. */
  merged: number;
  /** Once merged: every distinct payload, oldest first (`payload` is the newest). */
  payloads?: unknown[];
}
