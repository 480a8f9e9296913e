import type { Config } from '../config/index.js';
import { errorText } from '../errors/index.js';
import type { RunStatus, RunStore, SessionStore, TranscriptEntry } from '../sessions/index.js';
import { createAllowlist, type ToolPolicy, type ToolRegistry, type ToolServices } from '../tools/index.js';
import { toMessage, toModelMessages } from './model-context.js';
import { noModelReply } from './no-model-reply.js';
import { ModelCallError, type ModelProvider } from './providers/index.js';
import { buildSystemPrompt } from './system-prompt.js';
import { runToolLoop, type ToolLoopEnd, type ToolLoopProgress } from './tool-loop.js';
import { TurnAbort, type TurnRequest, type TurnResult, type TurnRunner } from './types.js';

const SPAWN_TOOLS = new Set(['sessions_spawn', 'subagents']);

export interface AgentRunnerOptions {
  config: Config;
  configPath: string;
  /** One provider per `models.<name>`. */
  providers: ReadonlyMap<string, ModelProvider>;
  registry: ToolRegistry;
  services: ToolServices;
  sessions: SessionStore;
  runs: RunStore;
  /** Each agent's own instructions (`systemPrompt` or the text of `systemPromptFile`). */
  instructions: ReadonlyMap<string, string>;
  now?: () => Date;
}

export interface AgentRunner extends TurnRunner {
  /** The running run of a session and its burst counter (rounds of its current or last turn). */
  activity(sessionKey: string): { runId?: string; burst: number };
}

/**
 * Runs turns through the tool loop. Every turn is a run in the run registry with a status;
 * a model failure, a timeout or an abort ends the run with a message in the chat, never an
 * exception. Every turn starts a burst of its own, a user's message or a runtime event (signal,
 * announcement, schedule) alike, so turns the runtime starts never use up the rounds of another.
 */
export function createAgentRunner(options: AgentRunnerOptions): AgentRunner {
  const { config } = options;
  const now = options.now ?? (() => new Date());
  const bursts = new Map<string, { value: number }>();
  const running = new Map<string, string>();

  async function runTurn(request: TurnRequest): Promise<TurnResult> {
    const { agent, sessionKey } = request;
    if (agent.model === undefined) {
      const text = noModelReply({ agentId: request.agentId, agent, configPath: options.configPath });
      await request.record({ role: 'assistant', text });
      await request.reply({ id: crypto.randomUUID(), text });
      return { status: 'done' };
    }
    const provider = options.providers.get(agent.model);
    if (!provider)
      throw new Error(
        `no provider for model "${agent.model}" (the config validation should have caught this)`,
      );

    const burst = { value: 0 };
    bursts.set(sessionKey, burst);

    const run = await options.runs.start({ sessionKey, agentId: request.agentId, model: agent.model });
    running.set(sessionKey, run.runId);
    const timeoutSeconds = request.runTimeoutSeconds ?? config.agentLoop.runTimeoutSeconds;
    const timeoutMs = timeoutSeconds * 1000;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new Error('run timeout')), timeoutMs);
    const signal = AbortSignal.any([request.signal, timeout.signal]);
    const progress: ToolLoopProgress = { rounds: 0, toolCalls: 0 };
    const logger = request.logger.child({ run: run.runId });
    let status: Exclude<RunStatus, 'running'> = 'done';
    let outcome: string | undefined;
    try {
      const end = await loop(request, { runId: run.runId, provider, burst, signal, progress, logger });
      if (end === 'max_burst') {
        outcome = 'max burst reached';
        await tell(
          request,
          `I have used ${config.agentLoop.maxBurst} rounds of model calls and tools since your last message, ` +
            'so I am pausing here and waiting for you. Reply to let me continue.',
        );
      }
    } catch (error) {
      if (signal.aborted) {
        status =
          timeout.signal.aborted && !request.signal.aborted ? 'timeout' : abortStatus(request.signal.reason);
        outcome =
          status === 'timeout' ? `timed out after ${timeoutSeconds} s` : errorText(request.signal.reason);
        await endStream(request, run.runId, progress, status);
        if (status === 'timeout') {
          await tell(request, `The run timed out after ${timeoutSeconds} s.`);
        }
      } else {
        status = 'error';
        outcome = errorText(error);
        if (!(error instanceof ModelCallError)) logger.error({ err: error }, 'run failed');
        await tell(request, error instanceof ModelCallError ? error.message : `The run failed: ${outcome}`);
      }
    } finally {
      clearTimeout(timer);
      running.delete(sessionKey);
      await options.runs.finish(run.runId, {
        status,
        rounds: progress.rounds,
        toolCalls: progress.toolCalls,
        ...(outcome === undefined ? {} : { outcome }),
      });
    }
    logger.info({ status, rounds: progress.rounds, toolCalls: progress.toolCalls }, 'run ended');
    return { status, runId: run.runId };
  }

  async function loop(
    request: TurnRequest,
    run: {
      runId: string;
      provider: ModelProvider;
      burst: { value: number };
      signal: AbortSignal;
      progress: ToolLoopProgress;
      logger: TurnRequest['logger'];
    },
  ): Promise<ToolLoopEnd> {
    const { agent, agentId, sessionKey, route } = request;
    const allowlist = createAllowlist(agent.tools);
    // Spawning tools only where one more level of sub-agents is allowed.
    const maySpawn = request.depth < config.subagents.maxSpawnDepth;
    const policy: ToolPolicy = {
      allows: (name) => allowlist(name) && (maySpawn || !SPAWN_TOOLS.has(name)),
      isOwner: request.isOwner,
    };
    const tools = options.registry.visible(policy);
    const multiUser = route.chatType === 'channel';
    const history = await options.sessions.transcript(sessionKey, { last: config.agentLoop.historyEntries });
    // A steered message may already be in the history read above; it must not be added twice.
    let lastSeq = history.at(-1)?.seq ?? -1;
    const takeSteered = async () =>
      (await request.takeSteered())
        .filter((entry: TranscriptEntry) => entry.seq > lastSeq)
        .map((entry) => {
          lastSeq = Math.max(lastSeq, entry.seq);
          return toMessage(entry, { multiUser });
        });
    return runToolLoop({
      provider: run.provider,
      registry: options.registry,
      policy,
      tools,
      system: buildSystemPrompt({
        agentId,
        displayName: agent.displayName,
        instructions: options.instructions.get(agentId),
        sessionKey,
        route,
        senderId: request.senderId,
        isOwner: request.isOwner,
        tools,
        now: now(),
      }),
      messages: toModelMessages(history, { multiUser }),
      maxBurst: config.agentLoop.maxBurst,
      burst: run.burst,
      signal: run.signal,
      progress: run.progress,
      toolContext: {
        sessionKey,
        agentId,
        runId: run.runId,
        senderId: request.senderId,
        isOwner: request.isOwner,
        route,
        logger: run.logger,
        signal: run.signal,
        depth: request.depth,
        services: options.services,
      },
      onDelta: request.onDelta,
      reply: request.reply,
      record: request.record,
      takeSteered,
    });
  }

  return {
    runTurn,
    activity: (sessionKey) => ({
      ...(running.has(sessionKey) ? { runId: running.get(sessionKey) } : {}),
      burst: bursts.get(sessionKey)?.value ?? 0,
    }),
  };
}

function abortStatus(reason: unknown): 'killed' | 'interrupted' {
  return reason instanceof TurnAbort ? reason.status : 'killed';
}

/** A message from the gateway itself (not the model): recorded as a system entry and sent. */
async function tell(request: TurnRequest, text: string): Promise<void> {
  await request.record({ role: 'system', text });
  await request.reply({ id: crypto.randomUUID(), text });
}

/** A reply cut off mid-stream is completed with what was written and marked, so the chat does not show it as still typing. */
async function endStream(request: TurnRequest, runId: string, progress: ToolLoopProgress, status: RunStatus) {
  const streaming = progress.streaming;
  if (!streaming || streaming.text.trim() === '') return;
  const text = `${streaming.text}\n\n[${status === 'timeout' ? 'timed out' : 'stopped'}]`;
  await request.record({ role: 'assistant', text, runId });
  await request.reply({ id: streaming.id, text });
}
