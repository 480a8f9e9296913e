import { Type } from '@sinclair/typebox';
import type { SpawnResult } from '../subagents-port.js';
import { causerOf } from '../turn-scope.js';
import type { Tool } from '../types.js';

const SessionsSpawnParameters = Type.Object(
  {
    task: Type.String({
      minLength: 1,
      description:
        'Everything the sub-agent needs to do the work: it does not see this conversation. Say what to return.',
    }),
    label: Type.Optional(
      Type.String({
        maxLength: 80,
        description: 'A short name for the sub-agent, used in lists and to name it in `subagents`.',
      }),
    ),
    agentId: Type.Optional(
      Type.String({ minLength: 1, description: 'The agent that runs the task; default: yours.' }),
    ),
    model: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'A model name from the config (`models`) to use instead of the agent default.',
      }),
    ),
    runTimeoutSeconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 86400,
        description:
          'Stop the sub-agent after this many seconds (its result is then announced as a timeout).',
      }),
    ),
    announce: Type.Optional(
      Type.Boolean({
        description:
          'false: its result is not announced back into this session when it ends (read it with `subagents` list instead). Default: the agent config `announce` (true unless set).',
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * The model-facing JSON of `sessions_spawn` (its shape predates `Result` and does not change):
 * `{ status: 'accepted', runId, childSessionKey }`, or `{ ok: false, reason }`.
 */
type SpawnToolOutput =
  | { status: 'accepted'; runId: string; childSessionKey: string }
  | { ok: false; reason: string };

function spawnToolOutput(result: SpawnResult): SpawnToolOutput {
  return result.ok
    ? { status: 'accepted', runId: result.value.subagentRunId, childSessionKey: result.value.childSessionKey }
    : { ok: false, reason: result.error };
}

/**
 * Starts a child run and returns at once: `{ status: 'accepted', runId, childSessionKey }`, or
 * `{ ok: false, reason }` naming the limit that refused it. The outcome is announced later.
 */
export const sessionsSpawnTool: Tool<typeof SessionsSpawnParameters> = {
  name: 'sessions_spawn',
  risk: ['write'],
  requires: ['spawn-depth'],
  description:
    'Start a sub-agent that works on a task in its own session, in the background, and return at once. When it finishes, its result is announced back into this session by itself (unless `announce` is false): do not wait, sleep or poll for it; go on with other work or end your reply. Use subagents to list, kill or steer the sub-agents you started.',
  parameters: SessionsSpawnParameters,
  async execute(input, context): Promise<SpawnToolOutput> {
    const caller = {
      sessionKey: context.sessionKey,
      agentId: context.agentId,
      runId: context.runId,
      // The spawning turn's payer pays for the child, its steers and its announcement.
      chargedTo: causerOf(context),
    };
    return spawnToolOutput(await context.services.subagents.spawn(caller, input));
  },
};
