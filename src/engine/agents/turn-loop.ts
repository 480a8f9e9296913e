import { type Principal, resolvePrincipal, roleRules } from '../../base/access/index.js';
import type { Config } from '../../base/config/index.js';
import type { Logger } from '../../base/logging/index.js';
import { communicationPolicy } from '../../base/messages/index.js';
import type { TranscriptEntry } from '../../records/sessions/index.js';
import {
  createAllowlist,
  type ToolContext,
  type ToolPolicy,
  type ToolRegistry,
  turnScope,
} from '../tools/index.js';
import { buildTurnContext } from './context/index.js';
import { toMessage } from './model-context.js';
import { loadImages } from './model-files.js';
import type { ModelMessage, ModelProvider } from './providers/index.js';
import { RESUMED_NOTICE, resumeOpenCalls } from './resume-turn.js';
import type { RunnerState } from './runner-state.js';
import { buildSystemPrompt } from './system-prompt.js';
import { runToolLoop, type ToolLoopEnd } from './tool-loop.js';
import type { ToolLoopEvent } from './tool-loop-events.js';
import { type TurnTools, turnTools } from './turn-tools.js';
import type { TurnRequest, TurnSession } from './types.js';

/** The run a turn's loop belongs to, as the runner started it. */
export interface LoopRun {
  runId: string;
  provider: ModelProvider;
  signal: AbortSignal;
  /** Stops the run's time limit while a tool call waits for a human. */
  pauseTimeLimit?(): () => void;
  logger: Logger;
  /** The session's last `agentLoop.historyEntries` entries, read while the run started. */
  history: Promise<readonly TranscriptEntry[]>;
  /** Appends an entry to the session's transcript (the turn's `TurnSession.record`). */
  record: TurnSession['record'];
  emit(event: ToolLoopEvent): void | Promise<void>;
  /** The model takes images (`models.<name>.images`). */
  takesImages: boolean;
}

/** Takes the session's history and runs the tool loop for `request` with the tools it may use. */
export async function runTurnLoop(
  state: RunnerState,
  request: TurnRequest,
  session: TurnSession,
  run: LoopRun,
): Promise<ToolLoopEnd> {
  const { config, registry, services } = state.options;
  const principal = turnPrincipal(config, request);
  const policy = { ...turnPolicy(request, registry, config.subagents.maxSpawnDepth), principal };
  const toolContext: ToolContext = {
    ...turnScope(request),
    principal,
    runId: run.runId,
    logger: run.logger,
    signal: run.signal,
    services,
    ...(run.pauseTimeLimit ? { pauseTimeLimit: run.pauseTimeLimit } : {}),
    ...(session.yieldSlot ? { yieldSlot: session.yieldSlot } : {}),
  };
  const tools = turnTools(registry, policy, toolContext);
  const multiUser = request.route.chatType === 'channel';
  const read = await run.history;
  const history = request.resumed ? await resume(run, tools, read) : read;
  const system = buildSystemPrompt({
    ...turnScope(request),
    displayName: request.agent.displayName,
    instructions: state.options.instructions.get(request.agentId),
    tools: tools.visible,
    now: state.now(),
    communication: communicationPolicy(config),
  });
  const context = await buildTurnContext(state, request, run, { history, system, tools: tools.specs });
  return runToolLoop({
    provider: run.provider,
    tools,
    system,
    history: await loadImages(context.history, {
      reader: { agentId: request.agentId, senderId: request.senderId, route: request.route },
      takesImages: run.takesImages,
      read: state.options.readWorkspaceFile,
    }),
    fit: context.fit,
    maxBurst: config.agentLoop.maxBurst,
    runId: run.runId,
    signal: run.signal,
    transcript: { record: run.record, takeSteered: steeredAfter(session, history, multiUser) },
    emit: run.emit,
  });
}

/**
 * A turn a restart cut short goes on from its transcript: the calls its last round left without
 * a result get one (run again when restart-safe, else "outcome unknown"), and the chat is told in
 * one line instead of hearing the answer again.
 */
async function resume(
  run: LoopRun,
  tools: TurnTools,
  history: readonly TranscriptEntry[],
): Promise<readonly TranscriptEntry[]> {
  const calls = await resumeOpenCalls(history, tools, run.record, run.runId);
  run.logger.info({ repeated: calls.repeated, unknown: calls.unknown }, 'turn resumed after a restart');
  await run.emit({ type: 'reply', message: { id: crypto.randomUUID(), text: RESUMED_NOTICE } });
  return [...history, ...calls.entries];
}

/**
 * Who the turn runs as: its sender's principal. A turn the router did not make an owner turn (a
 * runtime turn without `runtimeAs` whose sender happens to be an owner) is never an owner's: it
 * runs as a member.
 */
function turnPrincipal(config: Config, request: TurnRequest): Principal {
  const principal = resolvePrincipal(config, request.senderId);
  if (principal.role !== 'owner' || request.isOwner) return principal;
  return { senderId: principal.senderId, role: 'member', rules: roleRules(config, 'member') };
}

/** The agent's allowlist; a tool that requires `spawn-depth` only where one more level of sub-agents is allowed. */
function turnPolicy(request: TurnRequest, registry: ToolRegistry, maxSpawnDepth: number): ToolPolicy {
  const allowlist = createAllowlist(request.agent.tools);
  const maySpawn = request.depth < maxSpawnDepth;
  const spawns = (name: string) => registry.get(name)?.requires?.includes('spawn-depth') === true;
  return {
    allows: (name) => allowlist(name) && (maySpawn || !spawns(name)),
    isOwner: request.isOwner,
  };
}

/** Steered messages as model messages; one already in `history` is not added twice. */
function steeredAfter(
  session: TurnSession,
  history: readonly TranscriptEntry[],
  multiUser: boolean,
): () => Promise<ModelMessage[]> {
  let lastSeq = history.at(-1)?.seq ?? -1;
  return async () =>
    (await session.takeSteered())
      .filter((entry) => entry.seq > lastSeq)
      .map((entry) => {
        lastSeq = Math.max(lastSeq, entry.seq);
        return toMessage(entry, { multiUser });
      });
}
