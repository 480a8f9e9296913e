/**
 * The words for a message between agents (or from an agent or a toolpack to a chat) and for the
 * urgency every signal and message carries. Signals, toolpacks and tools all speak them; this
 * module imports nothing.
 */

/** Urgency, most urgent first: P0/P1 wake their agent together, P2/P3 one at a time. */
export const PRIORITIES = ['P0', 'P1', 'P2', 'P3'] as const;
export type Priority = (typeof PRIORITIES)[number];

/**
 * The priority of a signal recorded without one. Two entry points keep their own documented
 * default, as behaviour: a toolpack's `store.sendMessage` and the model's `messages.send` (its
 * schema's default, model-facing) both send P3, as Suzumio does.
 */
export const DEFAULT_PRIORITY: Priority = 'P2';

/** Sort key: 0 for P0 … 3 for P3; anything else sorts with P3. */
export function priorityRank(priority: string): number {
  const rank = PRIORITIES.indexOf(priority as Priority);
  return rank === -1 ? PRIORITIES.length - 1 : rank;
}

export function isPriority(value: unknown): value is Priority {
  return PRIORITIES.includes(value as Priority);
}

/** Suzumio's word for the human: a message for `user` is posted in a chat, not given to an agent. */
export const USER_RECIPIENT = 'user';

/**
 * A message from an agent (`messages.send`) or a toolpack (`store.sendMessage`): to an agent or
 * `user` (`recipient`, the coordinator agent when neither is given) or to a named route (`channel`).
 */
export interface AgentMessage {
  id: string;
  sender: string;
  recipient?: string | undefined;
  channel?: string | undefined;
  priority: Priority;
  body: string;
  /**
   * The chat sender who caused the send (the sending turn's payer, `causerOf`): the recipient's
   * wake turn is charged to them. Set by the gateway's own tools, never by a toolpack.
   */
  chargedTo?: string | undefined;
}

/**
 * What sending a message answers. It is model-facing (`messages.send` returns it as is), so its
 * refusal keeps the field `reason`: a recipient that is neither an agent nor `user`, or no chat
 * reaching the user.
 */
export type SendOutcome = { ok: true } | { ok: false; reason: string };

/** The refusal of a recipient that is neither an agent nor `user`, naming it (`messages.send` words it so too). */
export function notAnAgent(recipient: string, agentIds: readonly string[]): string {
  return `recipient ${recipient} is not an agent (agents: ${agentIds.join(', ') || 'none'}; "${USER_RECIPIENT}" for the human)`;
}
