import type { DeliveryRoute } from '../messages/index.js';
import { type ApprovalVerdict, causerOf, type GatedCall, type ToolContext } from '../tools/index.js';
import { argumentsHash } from './action-value.js';
import { approversOf, resolvePolicy, runsAsRuntimeIdentity } from './policy.js';
import { requestMessage } from './request-message.js';
import { type ApprovalsState, alwaysKey, openRequest, settle } from './state.js';
import type { ApprovalRecord } from './types.js';

/**
 * The gate of one call. `auto` runs, `deny` is refused, `ask` waits: on the request this session
 * already has for the same tool and arguments when one is open and nobody waits on it (the same
 * call after a restart: the buttons posted before still decide it), else on a new one, posted.
 * An approved request is marked used, durably, before the call runs: it never runs twice.
 */
export async function checkCall(
  state: ApprovalsState,
  call: GatedCall,
  context: ToolContext,
): Promise<ApprovalVerdict> {
  const { config } = state.options;
  const always = state.always.has(alwaysKey(context.agentId, call.tool));
  const runtimeAs = runsAsRuntimeIdentity(config, context.agentId, context.senderId, context.route.channel);
  const policy = always
    ? 'auto'
    : resolvePolicy(config, context.agentId, call.tool, call.review.risky, runtimeAs);
  if (policy === 'auto') return { status: 'approved', by: 'policy' };
  if (policy === 'deny') {
    const reason = `the approvals policy denies ${call.tool} for agent ${context.agentId}`;
    return { status: 'denied', by: 'policy', reason };
  }
  const hash = argumentsHash({ tool: call.tool, input: call.input });
  const reused = reusable(state, context.sessionKey, call.tool, hash);
  if (!reused) {
    const refusal = overBound(state, context);
    if (refusal !== undefined) return refuseAtOnce(state, context, refusal);
  }
  const record = reused ?? (await request(state, call, context, hash));
  const decided = record.status === 'pending' ? await waitFor(state, record, context) : record;
  return consume(state, decided);
}

/**
 * Why a new request of this requester is refused: they have `approvals.maxOpenPerRequester`
 * requests pending already (a non-owner turn's sender, or the user who caused a runtime turn).
 * Owners' turns are not bounded.
 */
function overBound(state: ApprovalsState, context: ToolContext): string | undefined {
  if (context.isOwner) return undefined;
  const requester = causerOf(context);
  const limit = state.options.config.approvals.maxOpenPerRequester;
  const open = state.records
    .open()
    .filter(
      (record) => record.kind === 'tool' && record.status === 'pending' && record.requester === requester,
    );
  if (open.length < limit) return undefined;
  return (
    `${requester} has ${open.length} approval requests open (approvals.maxOpenPerRequester is ${limit}): ` +
    'this call was not asked for. Wait until an approver decides one of them, then try again.'
  );
}

/** A refusal nobody is asked about: the model reads it as the call's result, the chat is told. */
async function refuseAtOnce(
  state: ApprovalsState,
  context: ToolContext,
  reason: string,
): Promise<ApprovalVerdict> {
  state.options.logger.info(
    { session: context.sessionKey, requester: causerOf(context) },
    'approval request refused: too many open',
  );
  if (context.route.channel !== 'internal') {
    await state.options
      .outboundFor(context.route)
      .reply({ id: crypto.randomUUID(), text: reason })
      .catch((error: unknown) => state.options.logger.warn({ err: error }, 'approval refusal not posted'));
  }
  return { status: 'denied', by: 'gateway', reason };
}

function reusable(state: ApprovalsState, sessionKey: string, tool: string, hash: string) {
  return state.records
    .open()
    .find(
      (record) =>
        record.kind === 'tool' &&
        record.sessionKey === sessionKey &&
        record.tool === tool &&
        record.argumentsHash === hash &&
        !state.waiters.has(record.id),
    );
}

async function request(state: ApprovalsState, call: GatedCall, context: ToolContext, hash: string) {
  const record = await openRequest(state, {
    kind: 'tool',
    tool: call.tool,
    agentId: context.agentId,
    sessionKey: context.sessionKey,
    route: context.route,
    requester: causerOf(context),
    argumentsHash: hash,
    arguments: JSON.stringify(call.input, null, 2) ?? '{}',
    details: call.review.details,
    ...(call.review.alwaysInCall ? { alwaysInCall: true as const } : {}),
    approvers: approversOf(state.options.config),
  });
  await post(state, record);
  return record;
}

/** Posts the request where config says; when no post got through, it is denied at once. */
async function post(state: ApprovalsState, record: ApprovalRecord): Promise<void> {
  const { outboundFor, logger } = state.options;
  const message = requestMessage(record, state.now());
  let posted = 0;
  for (const route of destinations(state, record)) {
    await outboundFor(route)
      .reply(message)
      .then(
        () => {
          posted += 1;
        },
        (error: unknown) =>
          logger.warn({ err: error, approval: record.id, route }, 'approval request not posted'),
      );
  }
  if (posted > 0) return;
  record.status = 'denied';
  record.decidedBy = 'gateway';
  record.decidedAt = state.now().toISOString();
  record.reason = 'the request could not be posted to any approver';
  await state.records.save(record);
  await state.audit.record('denied', record, { by: 'gateway', reason: record.reason });
  settle(state, record);
}

/** The chat that asked (`chat`), the approvers' direct messages (`direct`), or both; a chat no one reads posts direct. */
function destinations(state: ApprovalsState, record: ApprovalRecord): DeliveryRoute[] {
  const where = state.options.config.approvals.post;
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

/**
 * Until the request is decided or the run stops (then it rejects with the run's reason; the request
 * stays open). Meanwhile the run's time limit is paused and its turn slot serves other sessions;
 * once decided, the call goes on when the turn holds a slot again.
 */
async function waitFor(
  state: ApprovalsState,
  record: ApprovalRecord,
  context: ToolContext,
): Promise<ApprovalRecord> {
  const { signal } = context;
  if (signal.aborted) return Promise.reject(signal.reason);
  const resume = context.pauseTimeLimit?.();
  const takeSlot = context.yieldSlot?.();
  const decided = new Promise<ApprovalRecord>((resolve, reject) => {
    const waiting = state.waiters.get(record.id) ?? new Set();
    const done = (decided: ApprovalRecord) => {
      signal.removeEventListener('abort', stop);
      resolve(decided);
    };
    const stop = () => {
      waiting.delete(done);
      if (waiting.size === 0) state.waiters.delete(record.id);
      reject(signal.reason);
    };
    waiting.add(done);
    state.waiters.set(record.id, waiting);
    signal.addEventListener('abort', stop, { once: true });
  });
  try {
    const record = await decided;
    await takeSlot?.();
    return record;
  } finally {
    resume?.();
  }
}

async function consume(state: ApprovalsState, record: ApprovalRecord): Promise<ApprovalVerdict> {
  const by = record.decidedBy ?? 'nobody';
  if (record.status !== 'approved') {
    const reason = record.status === 'used' ? 'this approval was already used' : (record.reason ?? 'denied');
    return { status: 'denied', by, reason };
  }
  record.status = 'used';
  await state.records.save(record);
  await state.audit.record('used', record, { by });
  // "Always" that the call writes itself, in the same edit (no second writer to race it).
  return record.always && record.alwaysInCall
    ? { status: 'approved', by, always: true }
    : { status: 'approved', by };
}
