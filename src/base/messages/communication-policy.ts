import { type Priority, priorityRank, USER_RECIPIENT } from './agent-message.js';

/**
 * Suzumio's communication policy (config `communication`), as `messages.send` enforces it and the
 * system prompt tells it. With the restriction on, an agent other than the coordinator may message
 * only the coordinator (no other agent, no `user`, no route) and at most `maxPriority`; the
 * coordinator is free. Off, everyone is free (only the prompt's advice on priorities remains).
 */
export interface CommunicationPolicy {
  /** `communication.coordinatorAgent`, else `defaultAgent`. */
  coordinator: string;
  /** `communication.restrictNonCoordinatorToCoordinator`. */
  restricted: boolean;
  /** `communication.nonCoordinatorMaxPriority`: the most urgent a non-coordinator may send. */
  maxPriority: Priority;
  /** `communication.pmRoutineVerifierPriority`: what the coordinator is told to use for routine review and delegation. */
  routinePriority: Priority;
}

/** The config's part of the policy, read structurally (this folder imports nothing). */
export interface CommunicationSettings {
  defaultAgent: string;
  communication: {
    coordinatorAgent?: string | undefined;
    restrictNonCoordinatorToCoordinator: boolean;
    nonCoordinatorMaxPriority: Priority;
    pmRoutineVerifierPriority: Priority;
  };
}

export function communicationPolicy(config: CommunicationSettings): CommunicationPolicy {
  const { communication } = config;
  return {
    coordinator: communication.coordinatorAgent ?? config.defaultAgent,
    restricted: communication.restrictNonCoordinatorToCoordinator,
    maxPriority: communication.nonCoordinatorMaxPriority,
    routinePriority: communication.pmRoutineVerifierPriority,
  };
}

/** One send as the policy sees it: who sends, to whom (an agent or `user`) or to which route, how urgent. */
export interface PolicedSend {
  sender: string;
  recipient?: string | undefined;
  channel?: string | undefined;
  priority: Priority;
}

const RESTRICT_RULE = 'communication.restrictNonCoordinatorToCoordinator';
const PRIORITY_RULE = 'communication.nonCoordinatorMaxPriority';

/**
 * Why the policy refuses a send, naming the config key that refuses it (the wording keeps
 * Suzumio's phrases: "may message only <coordinator>", "channels are not allowed", "<P> or lower");
 * undefined when it is allowed. The route is checked first, then the recipient, then the priority.
 */
export function communicationRefusal(policy: CommunicationPolicy, send: PolicedSend): string | undefined {
  const { coordinator } = policy;
  if (!policy.restricted || send.sender === coordinator) return undefined;
  if (send.channel !== undefined) {
    return `refused by ${RESTRICT_RULE}: agents other than the coordinator may message only ${coordinator}; channels are not allowed (${send.channel})`;
  }
  if (send.recipient !== coordinator) {
    return `refused by ${RESTRICT_RULE}: agents other than the coordinator may message only ${coordinator}, not ${send.recipient ?? 'nobody'}`;
  }
  if (priorityRank(send.priority) < priorityRank(policy.maxPriority)) {
    return `refused by ${PRIORITY_RULE}: agents other than the coordinator may send ${policy.maxPriority} or lower; ${send.priority} is not allowed`;
  }
  return undefined;
}

/**
 * The policy as the agent's system prompt tells it: the default priority and when to raise it, and,
 * with the restriction on, what this agent may send (the coordinator: anyone, routine review and
 * delegation at `routinePriority`; any other agent: only the coordinator, at most `maxPriority`).
 */
export function communicationRules(policy: CommunicationPolicy, agentId: string): string[] {
  const lines = [
    'messages.send priorities: P3 (the default) for routine reports and status; P2 for work someone waits on; P1 for blockers and messages that unblock active work; P0 only for emergencies (a human stop, a destructive conflict, a secret or safety issue). A sent message is delivered: do not send acknowledgements or ask for receipts.',
  ];
  if (!policy.restricted) return lines;
  if (agentId === policy.coordinator) {
    lines.push(
      `Communication policy: you are the coordinator. You may message any agent or ${USER_RECIPIENT}. Send routine review and delegation at ${policy.routinePriority}.`,
    );
  } else {
    lines.push(
      `Communication policy: message only ${policy.coordinator} (not ${USER_RECIPIENT}, routes or other agents), at ${policy.maxPriority} or lower; other sends are refused.`,
    );
  }
  return lines;
}
