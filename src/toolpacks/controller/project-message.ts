/** The messages toolpacks send through `store.sendMessage`, and the check of what they pass. */

import { SwitchboardError } from '../../errors/index.js';

export const MESSAGE_PRIORITIES = ['P0', 'P1', 'P2', 'P3'] as const;
export type MessagePriority = (typeof MESSAGE_PRIORITIES)[number];

/** What a toolpack passes to `sendMessage`; other keys are ignored. */
export interface SendMessageRequest {
  sender: string;
  recipient?: string | undefined;
  channel?: string | undefined;
  /** Default P3. */
  priority?: MessagePriority | undefined;
  body: string;
}

/** A message handed to the gateway: exactly one of `recipient` (an agent) and `channel` (a route name). */
export interface ProjectMessage {
  id: string;
  sender: string;
  recipient?: string;
  channel?: string;
  priority: MessagePriority;
  body: string;
  createdAt: string;
  /** The toolpack whose store sent it. */
  toolpackId: string;
}

export type CheckedMessage = Pick<ProjectMessage, 'sender' | 'recipient' | 'channel' | 'priority' | 'body'>;

/** Suzumio's word for the human: a message for `user` is posted in a chat, not given to an agent. */
export const USER_RECIPIENT = 'user';

/** The refusal of a recipient that is neither an agent nor `user`, naming it (`messages.send` words it so too). */
export function notAnAgent(recipient: string, agentIds: readonly string[]): string {
  return `recipient ${recipient} is not an agent (agents: ${agentIds.join(', ') || 'none'}; "${USER_RECIPIENT}" for the human)`;
}

/** A malformed call is a bug in the toolpack: a TypeError naming the field, before anything is sent. */
export function checkMessage(
  request: unknown,
  routes: ReadonlySet<string>,
  agentIds: readonly string[],
): CheckedMessage {
  if (typeof request !== 'object' || request === null) {
    throw new TypeError('sendMessage: the message must be an object');
  }
  // Absent, undefined and null all mean "not given": Suzumio's packaged toolpacks pass both
  // `recipient` and `channel`, one of them undefined.
  const fields = request as Record<string, unknown>;
  const { sender, body } = fields;
  const recipient = fields.recipient ?? undefined;
  const channel = fields.channel ?? undefined;
  const priority = fields.priority ?? 'P3';
  const text = (value: unknown) => typeof value === 'string' && value.trim() !== '';
  if (!text(sender)) throw new TypeError('sendMessage: sender must be a non-empty string');
  if (recipient !== undefined && !text(recipient)) {
    throw new TypeError('sendMessage: recipient must be a non-empty string');
  }
  if (channel !== undefined && !text(channel)) {
    throw new TypeError('sendMessage: channel must be a non-empty string');
  }
  if ((recipient === undefined) === (channel === undefined)) {
    throw new TypeError('sendMessage: give exactly one of recipient and channel');
  }
  if (!MESSAGE_PRIORITIES.includes(priority as MessagePriority)) {
    throw new TypeError(`sendMessage: priority must be one of ${MESSAGE_PRIORITIES.join(', ')}`);
  }
  if (!text(body)) throw new TypeError('sendMessage: body must be a non-empty string');
  if (recipient !== undefined && recipient !== USER_RECIPIENT && !agentIds.includes(recipient as string)) {
    throw new SwitchboardError(
      'TOOLPACK_MESSAGE_TARGET',
      `sendMessage: ${notAnAgent(recipient as string, agentIds)}`,
    );
  }
  if (channel !== undefined && !routes.has(channel as string)) {
    const known = routes.size > 0 ? [...routes].join(', ') : 'none';
    throw new SwitchboardError(
      'TOOLPACK_MESSAGE_TARGET',
      `sendMessage: channel ${String(channel)} is not a configured route (routes: ${known})`,
    );
  }
  const target =
    recipient === undefined ? { channel: channel as string } : { recipient: recipient as string };
  return { sender: sender as string, ...target, priority: priority as MessagePriority, body: body as string };
}
