import type { DispatchResult, InboundMessage } from '../messages/index.js';
import type { ApprovalsPort } from '../tools/index.js';
import type { CommandReply } from './commands/index.js';
import { routeOf } from './intake.js';
import type { RouterState } from './router.js';

/**
 * Answers a chat command without a model and without queueing (so `/stop` reaches a busy
 * session). An unknown command lists the ones the sender may use; an owner command from anyone
 * else is refused. The reply has secret values removed and is not written to the transcript.
 */
export async function runCommand(
  state: RouterState,
  message: InboundMessage,
  sessionKey: string,
  agentId: string,
  parsed: { name: string; args: string },
): Promise<DispatchResult> {
  const answer = await commandReply(state, message, sessionKey, agentId, parsed);
  const { text, actions } = typeof answer === 'string' ? { text: answer, actions: undefined } : answer;
  const reply = { id: crypto.randomUUID(), text: state.scrub(text), ...(actions ? { actions } : {}) };
  await state.options.deliver(routeOf(message), reply).catch((error: unknown) => {
    state.options.logger.warn({ err: error, session: sessionKey }, 'command reply delivery failed');
  });
  return { sessionKey, replies: [reply] };
}

async function commandReply(
  state: RouterState,
  message: InboundMessage,
  sessionKey: string,
  agentId: string,
  parsed: { name: string; args: string },
): Promise<CommandReply> {
  const { options, commands } = state;
  const isOwner = state.owners.has(message.senderId);
  const command = commands.find((candidate) => candidate.name === parsed.name);
  if (!command) {
    const names = commands
      .filter((candidate) => isOwner || !candidate.ownerOnly)
      .map((candidate) => `/${candidate.name}`);
    return `Unknown command /${parsed.name}. Commands: ${names.join(', ')}.`;
  }
  if (command.ownerOnly && !isOwner)
    return `/${command.name} is for owners only; you are ${message.senderId}.`;
  return command.run({
    args: parsed.args,
    message,
    sessionKey,
    route: routeOf(message),
    agentId,
    isOwner,
    config: options.config,
    configFile: options.configFile,
    uptimeMs: Date.now() - options.startedAt,
    queues: state.queues,
    sessions: options.sessions,
    commands,
    gateway: options.gateway,
    subagents: options.subagents(),
    approvals: options.approvals ?? NO_APPROVALS,
  });
}

/** A router built without approvals (tests of routing alone): nothing waits, nothing is held. */
const NO_APPROVALS: ApprovalsPort = {
  check: async () => ({ status: 'approved', by: 'policy' }),
  decide: async () => ({ text: 'Approvals are not set up in this gateway.' }),
  hold: async (command) => ({ id: crypto.randomUUID(), text: `Not held: ${command.summary}` }),
};
