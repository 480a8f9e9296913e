import type { Config } from '../../base/config/index.js';
import type { DeliveryRoute, OutboundMessage, ReplyAction } from '../../base/messages/index.js';
import { actionValue } from './action-value.js';
import type { ApprovalRecord } from './types.js';

/** How much of the arguments and details a request shows. */
const SHOWN_CHARS = 2000;

export function shorten(text: string, limit = SHOWN_CHARS): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… [${text.length - limit} more characters]`;
}

/**
 * How a request is answered in text where it is posted: the chat command itself, or on Slack the
 * app's slash command (Slack's client takes a bare `/approve` for an unknown slash command).
 */
export interface AnswerStyle {
  /** Put before the command word: `/switchboard ` on Slack, '/' elsewhere. */
  prefix: string;
  /** The buttons shown with it are named (a platform that shows them). */
  buttons: boolean;
}

const PLAIN: AnswerStyle = { prefix: '/', buttons: false };

/** The answer style for a route: Slack's slash command (`channels.slack.slashCommand`), else the chat command. */
export function answerStyleFor(route: DeliveryRoute | undefined, config: Config): AnswerStyle {
  if (route?.channel !== 'slack') return PLAIN;
  return { prefix: `${config.channels.slack?.slashCommand ?? '/switchboard'} `, buttons: true };
}

/** The request as posted: what will run, for whom, until when, and how to answer in text. */
export function requestMessage(
  record: ApprovalRecord,
  now: Date,
  style: AnswerStyle = PLAIN,
): OutboundMessage {
  const minutes = Math.max(1, Math.round((Date.parse(record.expiresAt) - now.getTime()) / 60_000));
  const until = `${record.expiresAt.slice(11, 16)} UTC`;
  const lines =
    record.kind === 'tool'
      ? [
          `Approval needed (${record.code}): agent ${record.agentId} wants to run ${record.tool}.`,
          `Asked by ${record.requester} in ${record.sessionKey}.`,
          'Arguments:',
          fence(record.arguments),
        ]
      : [`Confirm (${record.code}): ${record.command ?? record.tool}`, record.arguments];
  if (record.details) lines.push(record.kind === 'tool' ? 'Change:' : '', fence(record.details, 'diff'));
  const { prefix, buttons } = style;
  const answer =
    record.kind === 'tool'
      ? buttons
        ? `Answer with the Approve or Deny button, or type ${prefix}approve ${record.code} · ${prefix}deny ${record.code} [reason]`
        : `Approve: ${prefix}approve ${record.code} · Deny: ${prefix}deny ${record.code} [reason]`
      : buttons
        ? `Answer with the Confirm or Cancel button, or type ${prefix}confirm ${record.code} · ${prefix}deny ${record.code}`
        : `Confirm: ${prefix}confirm ${record.code} · Cancel: ${prefix}deny ${record.code}`;
  lines.push(`${answer}. Without a decision in ${minutes} min (${until}) it is denied.`);
  if (record.madeBy) lines.push(separationLine(record));
  return {
    id: `approval-${record.id}`,
    text: lines.filter((line) => line !== '').join('\n'),
    actions: requestActions(record),
    origin: 'approval',
  };
}

/** Who may not decide under separation of duties, and whether anyone else can. */
function separationLine(record: ApprovalRecord): string {
  const rule = `Separation of duties: ${record.requester} made this call and cannot approve it`;
  if (record.approvers.length > 0) return `${rule}; approvers: ${record.approvers.join(', ')}.`;
  return `${rule}, and no other approver is configured (approvals.approvers): it waits, and is denied when it times out.`;
}

function requestActions(record: ApprovalRecord): ReplyAction[] {
  const value = (decision: 'approve' | 'deny' | 'always') =>
    actionValue(record.id, decision, record.argumentsHash);
  if (record.kind === 'command') {
    return [
      { label: 'Confirm', value: value('approve'), style: 'primary' },
      { label: 'Cancel', value: value('deny'), style: 'danger' },
    ];
  }
  return [
    { label: 'Approve', value: value('approve'), style: 'primary' },
    { label: 'Deny', value: value('deny'), style: 'danger' },
    { label: `Always for ${record.tool} in ${record.agentId}`, value: value('always') },
  ];
}

function fence(text: string, language = 'json'): string {
  return `\`\`\`${language}\n${shorten(text).replaceAll('```', "'''")}\n\`\`\``;
}

/** The one line that replaces a decided request's buttons, and answers whoever decided. */
export function decidedText(record: ApprovalRecord): string {
  const what = record.kind === 'tool' ? record.tool : (record.command ?? record.tool);
  const by = record.decidedBy ?? 'nobody';
  switch (record.status) {
    case 'approved':
    case 'used':
      if (record.kind === 'command') return `Confirmed by ${by}: ${what}`;
      return record.always
        ? `Approved by ${by}, and from now on always for ${record.tool} in agent ${record.agentId}: it runs now.`
        : `Approved by ${by}: ${what} runs now.`;
    case 'denied':
      if (record.kind === 'command') return `Cancelled by ${by}: ${what} was not run.`;
      return `Denied by ${by}: ${what} does not run${record.reason ? ` (${record.reason})` : ''}.`;
    case 'expired':
      return `Expired: nobody decided in time, so ${what} does not run.`;
    default:
      return `Waiting for a decision (${record.code}).`;
  }
}

/** The chat that asked (`chat`), the approvers' direct messages (`direct`), or both; a chat no one reads posts direct. */
export function destinations(where: Config['approvals']['post'], record: ApprovalRecord): DeliveryRoute[] {
  const chat = record.route.channel === 'internal' ? undefined : record.route;
  const direct = where === 'chat' && chat ? [] : record.approvers.flatMap(directRoute);
  const routes = where === 'direct' ? direct : [...(chat ? [chat] : []), ...direct];
  // The chat that asked may be one approver's direct chat already.
  return routes.filter(
    (route, index) => routes.findIndex((other) => JSON.stringify(other) === JSON.stringify(route)) === index,
  );
}

function directRoute(senderId: string): DeliveryRoute[] {
  const match = /^(webchat|slack|discord):(.+)$/.exec(senderId);
  if (!match?.[1] || !match[2]) return [];
  return [{ channel: match[1] as DeliveryRoute['channel'], chatType: 'direct', chatId: match[2] }];
}
