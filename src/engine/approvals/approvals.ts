import { identitiesOf } from '../../base/access/index.js';
import type { OutboundMessage } from '../../base/messages/index.js';
import {
  type ApprovalsPort,
  type ApprovalVerdict,
  causerOf,
  type DecisionInput,
  type DecisionOutcome,
  type GatedCall,
  type HeldCommand,
  type ToolContext,
} from '../tools/index.js';
import { argumentsHash } from './action-value.js';
import { type ApprovalRecords, createApprovalRecords } from './approval-records.js';
import { type ApprovalAudit, createApprovalAudit } from './audit.js';
import { applyDecision, findDecision, heldCommand, refusedOutcome } from './decisions.js';
import {
  approversOf,
  madeBy,
  overRequesterBound,
  resolvePolicy,
  runsAsRuntimeIdentity,
  separatesDuties,
} from './policy.js';
import { answerStyleFor, decidedText, destinations, requestMessage, shorten } from './request-message.js';
import type { ApprovalRecord, ApprovalsOptions } from './types.js';

export interface Approvals extends ApprovalsPort {
  /** Reads the open requests the last process left, expires those whose time is up, arms the rest. */
  start(): Promise<void>;
  /** The open requests (pending, or approved and not yet run), oldest first. */
  open(): ApprovalRecord[];
  /** The latest decided ones (used, denied, expired), newest first: for the approvals inbox. */
  recent(limit: number): Promise<ApprovalRecord[]>;
  /** One request by id, open or decided; undefined when this gateway does not know it. */
  find(id: string): Promise<ApprovalRecord | undefined>;
  /** Stops the expiry timers (the runs waiting are stopped by their own signals). */
  close(): void;
}

/** The approvals service: the gate of every tool call, decisions, held owner commands. */
export function createApprovals(options: ApprovalsOptions): Approvals {
  return new ApprovalsService(options);
}

/** What differs between a tool call's request and a held command's; the rest is filled in here. */
type RequestFields = Omit<
  ApprovalRecord,
  'id' | 'code' | 'arguments' | 'details' | 'createdAt' | 'expiresAt' | 'status'
> & { arguments: string; details?: string | undefined };

const alwaysKey = (agentId: string, tool: string) => `${agentId}\u0000${tool}`;

/**
 * The requests, their expiry timers, the calls waiting on them and the "always" of this process,
 * private to one object: the gate (`check`), the decisions (`decide`), held commands (`hold`) and
 * the timers change them only through its methods.
 */
class ApprovalsService implements Approvals {
  readonly #options: ApprovalsOptions;
  readonly #now: () => Date;
  readonly #records: ApprovalRecords;
  readonly #audit: ApprovalAudit;
  /** The calls waiting on each request, by request id: told its record once it is decided. */
  readonly #waiters = new Map<string, Set<(record: ApprovalRecord) => void>>();
  /** Each open request's expiry. */
  readonly #timers = new Map<string, NodeJS.Timeout>();
  /** "Always" decided in this process (`alwaysKey`): not asked again before the config says so. */
  readonly #always = new Set<string>();

  constructor(options: ApprovalsOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => new Date());
    this.#records = createApprovalRecords(options.store);
    this.#audit = createApprovalAudit({
      stateDir: options.stateDir,
      logger: options.logger,
      now: this.#now,
      ...(options.onAudit ? { onEvent: options.onAudit } : {}),
    });
  }

  async start(): Promise<void> {
    const open = await this.#records.load();
    for (const record of open) {
      if (Date.parse(record.expiresAt) <= this.#now().getTime()) await this.#expire(record.id);
      else this.#armExpiry(record);
    }
    if (open.length > 0) this.#options.logger.info({ open: open.length }, 'approval requests still open');
  }

  open(): ApprovalRecord[] {
    return this.#records.open().sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  recent(limit: number): Promise<ApprovalRecord[]> {
    return this.#records.closed(limit);
  }

  find(id: string): Promise<ApprovalRecord | undefined> {
    return this.#records.byId(id);
  }

  close(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }

  waiting(sessionKey: string): boolean {
    return this.#records
      .open()
      .some((record) => record.sessionKey === sessionKey && this.#waiters.has(record.id));
  }

  /**
   * The gate of one call. `auto` runs, `deny` is refused, `ask` waits: on the request this session
   * already has for the same tool and arguments when one is open and nobody waits on it (the same
   * call after a restart: the buttons posted before still decide it), else on a new one, posted.
   * An approved request is marked used, durably, before the call runs: it never runs twice.
   */
  async check(call: GatedCall, context: ToolContext): Promise<ApprovalVerdict> {
    const { config } = this.#options;
    const always = this.#always.has(alwaysKey(context.agentId, call.tool));
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
    const reused = this.#reusable(context.sessionKey, call.tool, hash);
    if (!reused) {
      const refusal = overRequesterBound(this.#records.open(), context, config.approvals.maxOpenPerRequester);
      if (refusal !== undefined) return this.#refuseAtOnce(context, refusal);
    }
    const record = reused ?? (await this.#request(call, context, hash));
    const decided = record.status === 'pending' ? await this.#waitFor(record, context) : record;
    return this.#consume(decided);
  }

  /**
   * A decision, typed or clicked. It counts only from an approver (by platform sender id), for an
   * open request, and for a click only with the arguments hash the request was shown with (an edited
   * or forged value is refused); a second decision is answered with the first. Saved before anyone
   * is told; a confirmed command is marked used in the same write and handed back to run once.
   */
  async decide(input: DecisionInput): Promise<DecisionOutcome> {
    const found = await findDecision(this.#records, input);
    const now = this.#now();
    if (!found.ok) return refusedOutcome(input, found.error, now);
    const { record, decision } = found.value;
    if (found.value.mismatch) {
      await this.#audit.record('refused', record, { by: input.by, reason: 'arguments hash does not match' });
      return refusedOutcome(
        input,
        `this button does not match request ${record.code}'s arguments`,
        now,
        record,
      );
    }
    if (this.#madeIt(record, input.by)) {
      await this.#audit.record('refused', record, { by: input.by, reason: 'separation of duties' });
      return refusedOutcome(
        input,
        `${input.by} made this call, and with separation of duties (approvals.separateDuties) another approver must decide ${record.code}.`,
        now,
        record,
      );
    }
    if (!record.approvers.includes(input.by)) {
      await this.#audit.record('refused', record, { by: input.by, reason: 'not an approver' });
      const who =
        record.kind === 'command'
          ? record.requester
          : record.approvers.join(', ') || 'no configured approver';
      return refusedOutcome(
        input,
        `only ${who} may decide ${record.code}; you are ${input.by}.`,
        now,
        record,
      );
    }
    if (record.status !== 'pending') return { text: `Already decided. ${decidedText(record)}` };
    const status = applyDecision(record, input.by, decision, now, found.value.reason);
    const confirmed = record.kind === 'command' && status === 'approved';
    if (confirmed) record.status = 'used';
    await this.#records.save(record);
    await this.#audit.record(status, record, {
      by: input.by,
      ...(record.reason ? { reason: record.reason } : {}),
      ...(record.always ? { always: true } : {}),
    });
    this.#settle(record);
    let text = decidedText(record);
    if (record.always) {
      this.#always.add(alwaysKey(record.agentId, record.tool));
      text += ` ${await this.#rememberAlways(record, input.by)}`;
    }
    return confirmed ? { text, confirmed: heldCommand(record) } : { text };
  }

  /** Whether `by` is (a person with) an identity that made the call, under separation of duties. */
  #madeIt(record: ApprovalRecord, by: string): boolean {
    if (!record.madeBy) return false;
    return identitiesOf(this.#options.config, by).some((id) => record.madeBy?.includes(id));
  }

  /** Holds an owner's command until that owner confirms it; the reply carries the code and buttons. */
  async hold(command: HeldCommand): Promise<OutboundMessage> {
    const record = await this.#openRequest({
      kind: 'command',
      tool: /^\/?(\S+)/.exec(command.text)?.[1] ?? 'command',
      agentId: command.agentId,
      sessionKey: command.sessionKey,
      route: command.route,
      requester: command.senderId,
      argumentsHash: argumentsHash(command.text),
      arguments: command.summary,
      details: command.details,
      command: command.text,
      approvers: [command.senderId],
    });
    return requestMessage(record, this.#now(), answerStyleFor(command.route, this.#options.config));
  }

  /**
   * A new open request, durable and audited before anyone sees it, its expiry armed. Arguments and
   * details pass `scrub` and are cut for display.
   */
  async #openRequest(fields: RequestFields): Promise<ApprovalRecord> {
    const { config, scrub } = this.#options;
    const now = this.#now();
    const { details, ...rest } = fields;
    const record: ApprovalRecord = {
      ...rest,
      id: this.#records.newId(),
      code: this.#records.newCode(),
      arguments: shorten(scrub(fields.arguments)),
      ...(details ? { details: shorten(scrub(details), 6000) } : {}),
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + config.approvals.timeoutSeconds * 1000).toISOString(),
      status: 'pending',
    };
    await this.#records.save(record);
    await this.#audit.record('requested', record);
    this.#armExpiry(record);
    return record;
  }

  /** A request was decided (or expired) and saved: its waiting calls go on, its timer ends. */
  #settle(record: ApprovalRecord): void {
    clearTimeout(this.#timers.get(record.id));
    this.#timers.delete(record.id);
    const waiting = this.#waiters.get(record.id);
    this.#waiters.delete(record.id);
    for (const waiter of waiting ?? []) waiter(record);
  }

  /** Ends the request when its time is up: a denial. Unref'd: a pending request keeps no process alive. */
  #armExpiry(record: ApprovalRecord): void {
    const delay = Math.max(0, Date.parse(record.expiresAt) - this.#now().getTime());
    const timer = setTimeout(() => void this.#expire(record.id), Math.min(delay, 2 ** 31 - 1));
    timer.unref();
    this.#timers.set(record.id, timer);
  }

  /** An open request whose time is up: `expired` (approved and never used ones too). */
  async #expire(id: string): Promise<void> {
    const record = this.#records.open().find((candidate) => candidate.id === id);
    if (!record) return;
    if (Date.parse(record.expiresAt) > this.#now().getTime()) {
      this.#armExpiry(record);
      return;
    }
    record.status = 'expired';
    record.decidedBy = 'timeout';
    record.decidedAt = this.#now().toISOString();
    record.reason = `no decision within ${this.#options.config.approvals.timeoutSeconds} s`;
    await this.#records.save(record);
    await this.#audit.record('expired', record, { reason: record.reason });
    this.#settle(record);
    if (record.route.channel === 'internal') return;
    const message = {
      id: `approval-${record.id}-expired`,
      text: decidedText(record),
      origin: 'approval' as const,
    };
    await this.#options
      .outboundFor(record.route)
      .reply(message)
      .catch((error: unknown) => {
        this.#options.logger.warn({ err: error, approval: record.id }, 'approval expiry not posted');
      });
  }

  /** This session's open request for the same tool and arguments that no call waits on. */
  #reusable(sessionKey: string, tool: string, hash: string): ApprovalRecord | undefined {
    return this.#records
      .open()
      .find(
        (record) =>
          record.kind === 'tool' &&
          record.sessionKey === sessionKey &&
          record.tool === tool &&
          record.argumentsHash === hash &&
          !this.#waiters.has(record.id),
      );
  }

  /** A refusal nobody is asked about: the model reads it as the call's result, the chat is told. */
  async #refuseAtOnce(context: ToolContext, reason: string): Promise<ApprovalVerdict> {
    const { logger, outboundFor } = this.#options;
    logger.info(
      { session: context.sessionKey, requester: causerOf(context) },
      'approval request refused: too many open',
    );
    if (context.route.channel !== 'internal') {
      await outboundFor(context.route)
        .reply({ id: crypto.randomUUID(), text: reason, origin: 'approval' })
        .catch((error: unknown) => logger.warn({ err: error }, 'approval refusal not posted'));
    }
    return { status: 'denied', by: 'gateway', reason };
  }

  async #request(call: GatedCall, context: ToolContext, hash: string): Promise<ApprovalRecord> {
    const { config } = this.#options;
    const excluded = separatesDuties(config, call.tool) ? madeBy(config, context) : undefined;
    const approvers = approversOf(config).filter((id) => !excluded?.includes(id));
    const record = await this.#openRequest({
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
      approvers,
      ...(excluded ? { madeBy: excluded } : {}),
    });
    await this.#post(record);
    return record;
  }

  /** Posts the request where config says; when no post got through, it is denied at once. */
  async #post(record: ApprovalRecord): Promise<void> {
    const { outboundFor, logger, config } = this.#options;
    let posted = 0;
    for (const route of destinations(config.approvals.post, record)) {
      const message = requestMessage(record, this.#now(), answerStyleFor(route, config));
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
    record.decidedAt = this.#now().toISOString();
    record.reason = 'the request could not be posted to any approver';
    await this.#records.save(record);
    await this.#audit.record('denied', record, { by: 'gateway', reason: record.reason });
    this.#settle(record);
  }

  /**
   * Until the request is decided or the run stops (then it rejects with the run's reason; the request
   * stays open). Meanwhile the run's time limit is paused and its turn slot serves other sessions;
   * once decided, the call goes on when the turn holds a slot again.
   */
  async #waitFor(record: ApprovalRecord, context: ToolContext): Promise<ApprovalRecord> {
    const { signal } = context;
    if (signal.aborted) return Promise.reject(signal.reason);
    const resume = context.pauseTimeLimit?.();
    const takeSlot = context.yieldSlot?.();
    const decided = new Promise<ApprovalRecord>((resolve, reject) => {
      const waiting = this.#waiters.get(record.id) ?? new Set();
      const done = (decided: ApprovalRecord) => {
        signal.removeEventListener('abort', stop);
        resolve(decided);
      };
      const stop = () => {
        waiting.delete(done);
        if (waiting.size === 0) this.#waiters.delete(record.id);
        reject(signal.reason);
      };
      waiting.add(done);
      this.#waiters.set(record.id, waiting);
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

  async #consume(record: ApprovalRecord): Promise<ApprovalVerdict> {
    const by = record.decidedBy ?? 'nobody';
    if (record.status !== 'approved') {
      const reason =
        record.status === 'used' ? 'this approval was already used' : (record.reason ?? 'denied');
      return { status: 'denied', by, reason };
    }
    record.status = 'used';
    await this.#records.save(record);
    await this.#audit.record('used', record, { by });
    // "Always" that the call writes itself, in the same edit (no second writer to race it).
    return record.always && record.alwaysInCall
      ? { status: 'approved', by, always: true }
      : { status: 'approved', by };
  }

  /**
   * "Always" written to the config: by the approvals service, or, when the call is itself a config
   * edit (`alwaysInCall`), by that edit, as one change: two writers from one hash would lose one.
   */
  #rememberAlways(record: ApprovalRecord, by: string): Promise<string> {
    const { agentId, tool, sessionKey, route } = record;
    if (record.alwaysInCall) {
      return Promise.resolve(
        `The approved edit writes it to agents.${agentId}.approvals.tools in the config, in the same change.`,
      );
    }
    return this.#options.rememberAlways({ agentId, tool, by, sessionKey, route });
  }
}
