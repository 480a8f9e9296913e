import type { ChatCommand, CommandContext } from './types.js';

const CODE = /^([A-Za-z0-9]{4,12})(?:\s+([\s\S]*))?$/;

/**
 * `/approve <code>`, `/deny <code> [reason]` and `/confirm <code>`: the text form of the buttons,
 * on every platform. Anyone may type them; the approvals service counts only an approver's (by
 * sender id) and says so to anyone else.
 */
function decisionCommand(name: 'approve' | 'deny' | 'confirm', summary: string): ChatCommand {
  return {
    name,
    summary,
    // Only owners hold commands; approvers need not be owners.
    ...(name === 'confirm' ? { ownerOnly: true } : {}),
    async run(context) {
      const match = CODE.exec(context.args);
      if (!match?.[1]) return `Usage: /${name} <code>${name === 'deny' ? ' [reason]' : ''}`;
      return decide(context, name, match[1], match[2]?.trim());
    },
  };
}

async function decide(
  context: CommandContext,
  name: 'approve' | 'deny' | 'confirm',
  code: string,
  reason?: string,
) {
  const outcome = await context.approvals.decide({
    kind: 'code',
    code,
    decision: name,
    by: context.message.senderId,
    ...(reason ? { reason } : {}),
  });
  if (!outcome.confirmed) return outcome.text;
  return `${outcome.text}\n${await context.runConfirmed(outcome.confirmed)}`;
}

export const approveCommand = decisionCommand('approve', 'Approve a waiting tool call: /approve <code>.');
export const denyCommand = decisionCommand(
  'deny',
  'Deny a waiting tool call or held command: /deny <code> [reason].',
);
export const confirmCommand = decisionCommand('confirm', 'Confirm a held owner command: /confirm <code>.');
