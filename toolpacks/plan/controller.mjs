import { randomUUID } from 'node:crypto';
import { ARCHIVE_LIMIT, withState } from './state.mjs';

/**
 * The plan toolpack's controller: one active plan per project (state under
 * `toolpack-state/plan/state.json`), its tools and WebUI entries, and a scheduler hook that nudges the
 * plan's target agent while items are still `tbd`. Bad input throws an Error with a readable message
 * and `statusCode` 400 (`inputError`); the gateway turns it into a tool error, or a 400 in the Tools API.
 */

export const NUDGE_KIND = 'plan.continuation_nudge';
const ITEM_STATUSES = ['tbd', 'done', 'wont_do'];
const CLOSE_STATUSES = ['done', 'abandoned'];
const ITEM_MODES = ['append', 'replace'];
const DEFAULT_COOLDOWN_MS = 60_000;

const ARGUMENTS = {
  'plan.create': [
    'title',
    'targetAgent',
    'items',
    'itemsText',
    'instructions',
    'replaceActive',
    'nudgeCooldownMs',
    'maxNudges',
  ],
  'plan.status': ['includeArchived'],
  'plan.update': [
    'title',
    'targetAgent',
    'instructions',
    'items',
    'itemsText',
    'itemMode',
    'nudgeCooldownMs',
    'maxNudges',
  ],
  'plan.set_item_status': ['itemId', 'itemIndex', 'status', 'text', 'note'],
  'plan.close': ['status', 'reason'],
};

function handlers(context) {
  return {
    'plan.create': (input) => planCreate(context, checkInput('plan.create', input)),
    'plan.status': (input) => planStatus(context, checkInput('plan.status', input)),
    'plan.update': (input) => planUpdate(context, checkInput('plan.update', input)),
    'plan.set_item_status': (input) => planSetItemStatus(context, checkInput('plan.set_item_status', input)),
    'plan.close': (input) => planClose(context, checkInput('plan.close', input)),
  };
}

export function createControllerToolpack(context) {
  return { tools: handlers(context) };
}

export function createWebuiToolpack(context) {
  const tools = handlers(context);
  return {
    webui: {
      'plan.board': tools['plan.status'],
      'plan.create': tools['plan.create'],
      'plan.update': tools['plan.update'],
      'plan.set_item_status': tools['plan.set_item_status'],
      'plan.close': tools['plan.close'],
    },
  };
}

/** Returns at most one P2 continuation nudge for the active plan's target agent. */
export function schedulerTick(context) {
  const nowMs = typeof context?.now === 'number' && Number.isFinite(context.now) ? context.now : Date.now();
  return withState(context.store, (state) => {
    const plan = state.activePlan;
    if (plan?.status !== 'active') return unchanged([]);
    const now = new Date(nowMs).toISOString();
    if (isComplete(plan)) {
      finishIfComplete(plan, now);
      return { result: [], save: true };
    }
    const agent = Array.isArray(context.agents)
      ? context.agents.find((candidate) => candidate?.id === plan.targetAgent)
      : undefined;
    // An unknown (removed) agent is never nudged; one with a live turn will see the plan itself.
    if (!agent || agent.modelAlive === true || agent.status === 'running') return unchanged([]);
    // A pending signal (this plan's nudge, or anything else) wakes the agent anyway.
    if (context.hasPendingSignalsForAgent?.(plan.targetAgent) === true) return unchanged([]);
    const last = plan.lastNudgeAt ? Date.parse(plan.lastNudgeAt) : Number.NaN;
    const cooldownMs = plan.nudgeCooldownMs ?? DEFAULT_COOLDOWN_MS;
    if (Number.isFinite(last) && nowMs - last < cooldownMs) return unchanged([]);
    const count = plan.nudgeCount ?? 0;
    if (plan.maxNudges > 0 && count >= plan.maxNudges) return unchanged([]);

    const remaining = plan.items.filter((item) => item.status === 'tbd');
    plan.nudgeCount = count + 1;
    plan.lastNudgeAt = now;
    const signal = {
      kind: NUDGE_KIND,
      targetAgent: plan.targetAgent,
      priority: 'P2',
      payload: {
        planId: plan.id,
        title: plan.title,
        message: continuationMessage(plan, remaining),
        remainingItems: remaining.map(({ id, text }) => ({ id, text })),
        nudgeCount: plan.nudgeCount,
      },
    };
    return { result: [signal], save: true };
  });
}

function unchanged(result) {
  return { result, save: false };
}

// ---------------------------------------------------------------------------------------------- tools

function planCreate(context, args) {
  const title = requiredText(args.title, 'title');
  const itemTexts = itemsFrom(args, 'plan.create');
  if (itemTexts.length === 0) throw inputError('plan.create needs at least one item (items or itemsText)');
  const replaceActive = optionalBoolean(args.replaceActive, 'replaceActive') ?? false;
  const targetAgent = checkAgent(context, args.targetAgent, coordinator(context));
  const instructions = optionalText(args.instructions, 'instructions');
  const nudgeCooldownMs = nonNegativeNumber(args.nudgeCooldownMs, 'nudgeCooldownMs') ?? DEFAULT_COOLDOWN_MS;
  const maxNudges = nonNegativeNumber(args.maxNudges, 'maxNudges') ?? 0;

  return withState(context.store, (state) => {
    const now = new Date().toISOString();
    const current = state.activePlan;
    if (current && !isComplete(current)) {
      if (!replaceActive) {
        const tbd = current.items.filter((item) => item.status === 'tbd').length;
        throw inputError(
          `an active plan already exists: ${current.id} "${current.title}" with ${tbd} item(s) still tbd; ` +
            'finish it, close it with plan.close, change it with plan.update, or pass replaceActive: true',
        );
      }
      archive(state, 'replaced', 'replaced by a new plan', now);
    } else if (current) {
      archive(state, 'done', current.closeReason, now);
    }
    const plan = {
      id: `pln_${randomUUID()}`,
      status: 'active',
      title,
      targetAgent,
      ...(instructions ? { instructions } : {}),
      items: [],
      nextItemNumber: 1,
      nudgeCooldownMs,
      maxNudges,
      nudgeCount: 0,
      createdAt: now,
      updatedAt: now,
    };
    appendItems(plan, itemTexts, now);
    state.activePlan = plan;
    return { result: report('plan created', state, false), save: true };
  });
}

function planStatus(context, args) {
  const includeArchived = optionalBoolean(args.includeArchived, 'includeArchived') ?? false;
  return withState(context.store, (state) => unchanged(report('plan status', state, includeArchived)));
}

function planUpdate(context, args) {
  const given = Object.keys(args).filter((key) => key !== 'itemMode');
  if (given.length === 0) {
    throw inputError(
      'plan.update needs something to change: title, targetAgent, instructions, itemsText (or items), nudgeCooldownMs or maxNudges',
    );
  }
  const title = args.title === undefined ? undefined : requiredText(args.title, 'title');
  const targetAgent = args.targetAgent === undefined ? undefined : checkAgent(context, args.targetAgent);
  const instructions = optionalText(args.instructions, 'instructions');
  const nudgeCooldownMs = nonNegativeNumber(args.nudgeCooldownMs, 'nudgeCooldownMs');
  const maxNudges = nonNegativeNumber(args.maxNudges, 'maxNudges');
  const itemMode = oneOf(args.itemMode, ITEM_MODES, 'itemMode') ?? 'append';
  const itemTexts = itemsFrom(args, 'plan.update');
  const itemsGiven = args.items !== undefined || args.itemsText !== undefined;
  if (itemsGiven && itemTexts.length === 0)
    throw inputError('plan.update: itemsText (or items) has no items');
  if (args.itemMode !== undefined && !itemsGiven)
    throw inputError('plan.update: itemMode needs itemsText (or items)');

  return withState(context.store, (state) => {
    const plan = requireActivePlan(state);
    const now = new Date().toISOString();
    if (title !== undefined) plan.title = title;
    if (targetAgent !== undefined) plan.targetAgent = targetAgent;
    if (instructions !== undefined) {
      if (instructions === '') delete plan.instructions;
      else plan.instructions = instructions;
    }
    if (nudgeCooldownMs !== undefined) plan.nudgeCooldownMs = nudgeCooldownMs;
    if (maxNudges !== undefined) plan.maxNudges = maxNudges;
    if (itemsGiven) {
      if (itemMode === 'replace') {
        plan.items = [];
        plan.nextItemNumber = 1;
      }
      appendItems(plan, itemTexts, now);
    }
    plan.updatedAt = now;
    settleStatus(plan, now);
    return { result: report('plan updated', state, false), save: true };
  });
}

function planSetItemStatus(context, args) {
  const status = oneOf(args.status, ITEM_STATUSES, 'status');
  if (status === undefined)
    throw inputError(`plan.set_item_status: status is required (${ITEM_STATUSES.join(', ')})`);
  const itemId = args.itemId === undefined ? undefined : requiredText(args.itemId, 'itemId');
  const itemIndex = args.itemIndex === undefined ? undefined : positiveInteger(args.itemIndex, 'itemIndex');
  if (itemId === undefined && itemIndex === undefined) {
    throw inputError('plan.set_item_status needs itemId (such as item_1) or itemIndex (1-based)');
  }
  const text = args.text === undefined ? undefined : requiredText(args.text, 'text');
  const note = optionalText(args.note, 'note');

  return withState(context.store, (state) => {
    const plan = requireActivePlan(state);
    const item = findItem(plan, itemId, itemIndex);
    const now = new Date().toISOString();
    item.status = status;
    if (text !== undefined) item.text = text;
    if (note !== undefined) {
      if (note === '') delete item.note;
      else item.note = note;
    }
    item.updatedAt = now;
    plan.updatedAt = now;
    settleStatus(plan, now);
    return { result: report('plan item updated', state, false), save: true };
  });
}

function planClose(context, args) {
  const status = oneOf(args.status, CLOSE_STATUSES, 'status') ?? 'done';
  const reason = optionalText(args.reason, 'reason');
  return withState(context.store, (state) => {
    const plan = requireActivePlan(state);
    if (status === 'done' && !isComplete(plan)) {
      const tbd = plan.items.filter((item) => item.status === 'tbd').map((item) => item.id);
      throw inputError(
        `cannot close plan ${plan.id} as done: ${tbd.join(', ')} still tbd; ` +
          'mark them done or wont_do with plan.set_item_status, or close with status "abandoned"',
      );
    }
    archive(state, status, reason || undefined, new Date().toISOString());
    return { result: report('plan closed', state, true), save: true };
  });
}

// ------------------------------------------------------------------------------------------- plan logic

function appendItems(plan, texts, now) {
  for (const text of texts) {
    const number = Number.isInteger(plan.nextItemNumber) && plan.nextItemNumber > 0 ? plan.nextItemNumber : 1;
    plan.items.push({ id: `item_${number}`, text, status: 'tbd', createdAt: now, updatedAt: now });
    plan.nextItemNumber = number + 1;
  }
}

function isComplete(plan) {
  return plan.items.length > 0 && plan.items.every((item) => item.status !== 'tbd');
}

function finishIfComplete(plan, now) {
  if (!isComplete(plan)) return;
  plan.status = 'done';
  plan.completedAt ??= now;
}

/** Done when nothing is tbd; active again when something is. */
function settleStatus(plan, now) {
  if (isComplete(plan)) {
    finishIfComplete(plan, now);
  } else if (plan.status !== 'active') {
    plan.status = 'active';
    delete plan.completedAt;
  }
}

function archive(state, status, reason, now) {
  const plan = state.activePlan;
  if (!plan) return;
  const archived = { ...plan, status, closedAt: now, updatedAt: now };
  if (reason) archived.closeReason = reason;
  if (status === 'done') archived.completedAt ??= now;
  state.archivedPlans = [archived, ...(state.archivedPlans ?? [])].slice(0, ARCHIVE_LIMIT);
  state.activePlan = null;
}

function requireActivePlan(state) {
  if (!state.activePlan) throw inputError('there is no active plan; create one with plan.create');
  return state.activePlan;
}

function findItem(plan, itemId, itemIndex) {
  if (itemId !== undefined) {
    const index = plan.items.findIndex((item) => item.id === itemId);
    if (index < 0) throw inputError(`plan ${plan.id} has no item ${itemId} (items: ${itemIds(plan)})`);
    if (itemIndex !== undefined && itemIndex !== index + 1) {
      throw inputError(`itemId ${itemId} is item ${index + 1}, not itemIndex ${itemIndex}; give one of them`);
    }
    return plan.items[index];
  }
  const item = plan.items[itemIndex - 1];
  if (!item)
    throw inputError(
      `itemIndex ${itemIndex} is out of range: plan ${plan.id} has ${plan.items.length} item(s)`,
    );
  return item;
}

function itemIds(plan) {
  return plan.items.map((item) => item.id).join(', ') || 'none';
}

function continuationMessage(plan, remaining) {
  const lines = [
    `Continue the active plan "${plan.title}" (${plan.id}): ${remaining.length} item(s) still tbd.`,
    ...(plan.instructions ? [`Instructions: ${plan.instructions}`] : []),
    'Remaining items:',
    ...remaining.map((item) => `- ${item.id}: ${item.text}`),
    'After each meaningful step, mark items done or wont_do with plan.set_item_status; use plan.status to see the whole plan.',
  ];
  return lines.join('\n');
}

// ------------------------------------------------------------------------------------------- output

function report(title, state, includeArchived) {
  const plan = state.activePlan;
  const sections = [plan ? formatPlan(plan) : 'No active plan.'];
  if (includeArchived) {
    const archived = state.archivedPlans ?? [];
    sections.push(
      '',
      `Archived plans (${archived.length}, newest first):`,
      ...(archived.length > 0 ? archived.map(formatArchived) : ['- none']),
    );
  }
  const metadata = { metrics: metrics(plan), activePlan: plan ?? null };
  if (includeArchived) metadata.archivedPlans = state.archivedPlans ?? [];
  return { title, output: sections.join('\n'), metadata };
}

function counts(plan) {
  const result = { tbd: 0, done: 0, wont_do: 0 };
  for (const item of plan.items) result[item.status] = (result[item.status] ?? 0) + 1;
  return result;
}

function metrics(plan) {
  if (!plan) return [{ label: 'Active plan', value: 'none' }];
  const count = counts(plan);
  return [
    { label: 'Status', value: plan.status },
    { label: 'TBD', value: count.tbd },
    { label: 'Done', value: count.done },
    { label: "Won't do", value: count.wont_do },
    {
      label: 'Nudges',
      value: plan.nudgeCount ?? 0,
      ...(plan.lastNudgeAt ? { description: `last ${plan.lastNudgeAt}` } : {}),
    },
  ];
}

function formatPlan(plan) {
  const count = counts(plan);
  const limit = plan.maxNudges > 0 ? ` of at most ${plan.maxNudges}` : '';
  return [
    `Plan ${plan.id}: ${plan.title}`,
    `Status: ${plan.status}`,
    `Target agent: ${plan.targetAgent}`,
    `Items: ${count.tbd} tbd, ${count.done} done, ${count.wont_do} wont_do`,
    `Nudges: ${plan.nudgeCount ?? 0}${limit}, cooldown ${plan.nudgeCooldownMs}ms${plan.lastNudgeAt ? `, last ${plan.lastNudgeAt}` : ''}`,
    ...(plan.instructions ? [`Instructions: ${plan.instructions}`] : []),
    '',
    'Items:',
    ...plan.items.map(
      (item, index) =>
        `${index + 1}. ${item.id} [${item.status}] ${item.text}${item.note ? ` (${item.note})` : ''}`,
    ),
  ].join('\n');
}

function formatArchived(plan) {
  const reason = plan.closeReason ? `: ${plan.closeReason}` : '';
  return `- ${plan.id} [${plan.status}] ${plan.title} (closed ${plan.closedAt ?? plan.updatedAt ?? 'unknown'})${reason}`;
}

// ------------------------------------------------------------------------------------------- input

function checkInput(tool, input) {
  if (input === undefined || input === null) return {};
  if (typeof input !== 'object' || Array.isArray(input))
    throw inputError(`${tool}: the input must be an object`);
  const allowed = ARGUMENTS[tool];
  const unknown = Object.keys(input).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) {
    throw inputError(`${tool}: unknown argument(s) ${unknown.join(', ')} (allowed: ${allowed.join(', ')})`);
  }
  // An argument given as undefined counts as absent.
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
}

function coordinator(context) {
  return context.store.config()?.communication?.coordinatorAgent;
}

function checkAgent(context, value, fallback) {
  const requested = value === undefined ? fallback : requiredText(value, 'targetAgent');
  const agents = context.store.listAgents().map((agent) => agent.id);
  if (requested === undefined)
    throw inputError('targetAgent is required: no coordinator agent is configured');
  if (!agents.includes(requested)) {
    throw inputError(`unknown targetAgent "${requested}" (agents: ${agents.join(', ') || 'none'})`);
  }
  return requested;
}

function itemsFrom(args, tool) {
  if (args.items !== undefined && args.itemsText !== undefined) {
    throw inputError(`${tool}: give items or itemsText, not both`);
  }
  if (args.items !== undefined) {
    if (!Array.isArray(args.items)) throw inputError(`${tool}: items must be an array of strings`);
    return args.items.map((item, index) => {
      if (typeof item !== 'string' || item.trim() === '') {
        throw inputError(`${tool}: items[${index}] must be a non-empty string`);
      }
      return item.trim();
    });
  }
  if (args.itemsText === undefined) return [];
  if (typeof args.itemsText !== 'string')
    throw inputError(`${tool}: itemsText must be a string, one item a line`);
  return args.itemsText
    .split(/\r?\n/)
    .map((line) => line.replace(/^\s*(?:[-*+]\s+(?:\[[ xX]?\]\s+)?|\d+[.)]\s*)/, '').trim())
    .filter((line) => line !== '');
}

function requiredText(value, name) {
  if (typeof value !== 'string' || value.trim() === '')
    throw inputError(`${name} must be a non-empty string`);
  return value.trim();
}

/** A string (trimmed; '' allowed, meaning "clear"), or undefined when absent. */
function optionalText(value, name) {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw inputError(`${name} must be a string`);
  return value.trim();
}

function optionalBoolean(value, name) {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw inputError(`${name} must be true or false`);
  return value;
}

function nonNegativeNumber(value, name) {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw inputError(`${name} must be a number ≥ 0, got ${JSON.stringify(value)}`);
  }
  return Math.trunc(value);
}

function positiveInteger(value, name) {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw inputError(`${name} must be a whole number ≥ 1 (1-based), got ${JSON.stringify(value)}`);
  }
  return value;
}

function oneOf(value, allowed, name) {
  if (value === undefined) return undefined;
  if (!allowed.includes(value)) {
    throw inputError(`${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** An error in the caller's input: `statusCode` 400 makes the gateway's Tools API answer 400 (Suzumio ignores it). */
function inputError(message) {
  return Object.assign(new Error(message), { statusCode: 400 });
}
