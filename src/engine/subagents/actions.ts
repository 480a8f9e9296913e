import { subagentDepth } from '../../records/sessions/index.js';
import {
  SUBAGENTS_ACTIONS,
  type SubagentCaller,
  type SubagentsActionInput,
  type SubagentsActionResult,
} from '../tools/index.js';
import { buildSubagentList, displayName, type ListWindow, latestRunPerChild } from './list-view.js';
import { isActiveSubagentRun, type SubagentRun } from './registry.js';
import { resolveSubagentTarget } from './resolve-target.js';
import type { SubagentsService } from './types.js';

/** What an action needs of the sub-agents: the caller's runs, kill and steer. */
type ActionTarget = Pick<SubagentsService, 'runs' | 'kill' | 'steer'>;

export const DEFAULT_RECENT_MINUTES = 30;
export const MAX_RECENT_MINUTES = 1440;
export const MAX_STEER_MESSAGE_CHARS = 4000;

/** `recentMinutes` as given (floored) within 1–1440; the default when absent or not a number. */
export function clampRecentMinutes(value: number | undefined): number {
  if (value === undefined || !Number.isFinite(value)) return DEFAULT_RECENT_MINUTES;
  return Math.max(1, Math.min(MAX_RECENT_MINUTES, Math.floor(value)));
}

/**
 * The `subagents` tool and `/subagents` command. Acts only on the children of
 * `caller.sessionKey` (the service's `runs` of that session); expected failures are
 * `{ status: 'error', error }` results, never exceptions. `target` and `message` are trimmed.
 */
export async function runSubagentsAction(
  service: ActionTarget,
  caller: SubagentCaller,
  input: SubagentsActionInput,
  now: number,
): Promise<SubagentsActionResult> {
  const action = input.action ?? 'list';
  const window: ListWindow = { now, recentMinutes: clampRecentMinutes(input.recentMinutes) };
  const target = input.target?.trim() ?? '';
  switch (action) {
    case 'list': {
      const list = buildSubagentList(await service.runs(caller.sessionKey), window);
      return {
        status: 'ok',
        action,
        requesterSessionKey: caller.sessionKey,
        callerSessionKey: caller.sessionKey,
        callerIsSubagent: subagentDepth(caller.sessionKey) > 0,
        ...list,
      };
    }
    case 'kill':
      if (target === '') return { status: 'error', action, error: 'target is required' };
      return target === 'all' || target === '*'
        ? killAll(service, caller)
        : killOne(service, caller, target, window);
    case 'steer':
      return steer(service, caller, target, input.message?.trim() ?? '', window);
    default:
      return {
        status: 'error',
        action: String(action),
        error: `Unsupported action. Allowed actions: ${SUBAGENTS_ACTIONS.join(', ')}.`,
      };
  }
}

/**
 * Kills every active child and every active run below a child (also below one that has ended),
 * most recently started first. `killed` counts every run killed, descendants included; a run a
 * cascade already killed is not killed (or counted) twice.
 */
async function killAll(service: ActionTarget, caller: SubagentCaller): Promise<SubagentsActionResult> {
  const children = latestRunPerChild(await service.runs(caller.sessionKey));
  const killed = new Map<string, SubagentRun>();
  for (const run of children) {
    if (killed.has(run.subagentRunId)) continue;
    for (const dead of await service.kill(run)) killed.set(dead.subagentRunId, dead);
  }
  const count = killed.size;
  return {
    status: 'ok',
    action: 'kill',
    target: 'all',
    killed: count,
    labels: [...killed.values()].map(displayName),
    text: count > 0 ? `killed ${count} subagent${count === 1 ? '' : 's'}.` : 'no running subagents to kill.',
  };
}

/** Kills the child and what runs below it; a child that has ended is not an error, its descendants are still killed. */
async function killOne(
  service: ActionTarget,
  caller: SubagentCaller,
  target: string,
  window: ListWindow,
): Promise<SubagentsActionResult> {
  const resolved = resolveSubagentTarget(await service.runs(caller.sessionKey), target, window);
  if (!resolved.ok) return { status: 'error', action: 'kill', target, error: resolved.error };
  const run = resolved.value;
  const name = displayName(run);
  const found = { runId: run.subagentRunId, sessionKey: run.childSessionKey, label: run.label };
  const killed = await service.kill(run);
  const itself = killed.some((dead) => dead.subagentRunId === run.subagentRunId);
  const cascadeKilled = killed.length - (itself ? 1 : 0);
  const below = `${cascadeKilled} descendant${cascadeKilled === 1 ? '' : 's'}`;
  let text: string;
  if (itself) text = cascadeKilled === 0 ? `killed ${name}.` : `killed ${name} and ${below}.`;
  else {
    const why = isActiveSubagentRun(run) ? 'it ended meanwhile' : run.status;
    text = `${name} is not running (${why})${cascadeKilled === 0 ? '.' : `; killed ${below}.`}`;
  }
  const labels = killed.map(displayName);
  return {
    status: 'ok',
    action: 'kill',
    target,
    ...found,
    killed: killed.length,
    labels,
    cascadeKilled,
    text,
  };
}

async function steer(
  service: ActionTarget,
  caller: SubagentCaller,
  target: string,
  message: string,
  window: ListWindow,
): Promise<SubagentsActionResult> {
  const action = 'steer';
  if (target === '') return { status: 'error', action, error: 'target is required' };
  if (message === '') return { status: 'error', action, target, error: 'message is required' };
  if (message.length > MAX_STEER_MESSAGE_CHARS) {
    const error = `Message too long (${message.length} chars, max ${MAX_STEER_MESSAGE_CHARS}).`;
    return { status: 'error', action, target, error };
  }
  const resolved = resolveSubagentTarget(await service.runs(caller.sessionKey), target, window);
  if (!resolved.ok) return { status: 'error', action, target, error: resolved.error };
  const run = resolved.value;
  const steered = await service.steer(caller, run, message);
  if (!steered.ok) return { status: 'error', action, target, error: steered.error };
  const result = steered.value;
  return {
    status: 'ok',
    action,
    target,
    runId: result.subagentRunId,
    sessionKey: run.childSessionKey,
    label: run.label,
    mode: result.mode,
    text: result.mode === 'injected' ? 'Message sent to subagent.' : 'Subagent restarted with the message.',
  };
}
