/** The messages toolpacks send through `store.sendMessage`, and the check of what they pass. */

import { SwitchboardError } from '../../../base/errors/index.js';
import {
  type AgentMessage,
  isPriority,
  notAnAgent,
  PRIORITIES,
  type Priority,
  USER_RECIPIENT,
} from '../../../base/messages/index.js';

export { notAnAgent, USER_RECIPIENT };

const CHAT_SENDER = /^(webchat|slack|discord):.+$/;

/** What a toolpack passes to `sendMessage`; other keys are ignored. */
export interface SendMessageRequest {
  sender: string;
  recipient?: string | undefined;
  channel?: string | undefined;
  /** Default P3. */
  priority?: Priority | undefined;
  body: string;
  /**
   * Switchboard: the sender's own name for this one send (the packaged scheduler: job and firing).
   * A second send with a key the outbox remembers is not sent again; it returns the first one's id.
   * It makes a send the sender could not record before a SIGKILL safe to repeat after the restart.
   */
  sendKey?: string | undefined;
  /**
   * Switchboard: the chat sender (`slack:U…`, `discord:…`, `webchat:…`) the recipient's wake turn
   * is charged to: the `chargedTo` of the handler context that made the send (the packaged
   * scheduler stores it with each job).
   */
  chargedTo?: string | undefined;
}

/** A message handed to the gateway: exactly one of `recipient` (an agent) and `channel` (a route name). */
export interface ProjectMessage extends AgentMessage {
  createdAt: string;
  /** The toolpack whose store sent it. */
  toolpackId: string;
  sendKey?: string;
}

export type CheckedMessage = Pick<
  ProjectMessage,
  'sender' | 'recipient' | 'channel' | 'priority' | 'body' | 'sendKey' | 'chargedTo'
>;

/** A malformed call is a bug in the toolpack: a coded error (TOOLPACK_CALL_INVALID) naming the field, before anything is sent. */
export function checkMessage(
  request: unknown,
  routes: ReadonlySet<string>,
  agentIds: readonly string[],
): CheckedMessage {
  if (typeof request !== 'object' || request === null) {
    throw callInvalid('sendMessage: the message must be an object');
  }
  // Absent, undefined and null all mean "not given": Suzumio's packaged toolpacks pass both
  // `recipient` and `channel`, one of them undefined.
  const fields = request as Record<string, unknown>;
  const { sender, body } = fields;
  const recipient = fields.recipient ?? undefined;
  const channel = fields.channel ?? undefined;
  const priority = fields.priority ?? 'P3';
  const text = (value: unknown) => typeof value === 'string' && value.trim() !== '';
  if (!text(sender)) throw callInvalid('sendMessage: sender must be a non-empty string');
  if (recipient !== undefined && !text(recipient)) {
    throw callInvalid('sendMessage: recipient must be a non-empty string');
  }
  if (channel !== undefined && !text(channel)) {
    throw callInvalid('sendMessage: channel must be a non-empty string');
  }
  if ((recipient === undefined) === (channel === undefined)) {
    throw callInvalid('sendMessage: give exactly one of recipient and channel');
  }
  if (!isPriority(priority)) {
    throw callInvalid(`sendMessage: priority must be one of ${PRIORITIES.join(', ')}`);
  }
  if (!text(body)) throw callInvalid('sendMessage: body must be a non-empty string');
  const sendKey = fields.sendKey ?? undefined;
  if (sendKey !== undefined && (!text(sendKey) || (sendKey as string).length > 200)) {
    throw callInvalid('sendMessage: sendKey must be a non-empty string of at most 200 characters');
  }
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
  const chargedTo = fields.chargedTo ?? undefined;
  if (chargedTo !== undefined && !(typeof chargedTo === 'string' && CHAT_SENDER.test(chargedTo))) {
    throw callInvalid('sendMessage: chargedTo must be a chat sender id (slack:…, discord:…, webchat:…)');
  }
  const target =
    recipient === undefined ? { channel: channel as string } : { recipient: recipient as string };
  return {
    sender: sender as string,
    ...target,
    priority,
    body: body as string,
    ...(sendKey === undefined ? {} : { sendKey: sendKey as string }),
    ...(chargedTo === undefined ? {} : { chargedTo }),
  };
}

/** A toolpack called the store with arguments it documents as invalid: a bug in the toolpack, named to its author. */
export function callInvalid(message: string): SwitchboardError {
  return new SwitchboardError('TOOLPACK_CALL_INVALID', message);
}
