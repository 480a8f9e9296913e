import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { fail, ok, type Result } from '../../base/errors/index.js';
import type { RunnerActivation } from './runner/index.js';

/** One agent run as toolpacks see it: runner calls and callSupport carry its id and token. */
export interface Activation extends RunnerActivation {
  agentId: string;
  runId: string;
  sessionKey: string;
  /** Who the run is charged to (`causerOf` its turn): what its controller calls send is charged to them. */
  chargedTo?: string;
}

export interface SupportCheck {
  activation: RunnerActivation;
  /** The agent whose runner process asks. */
  agentId: string;
  toolpackId: string;
  tool: string;
}

export interface ActivationRegistryOptions {
  /** Whether the run is still going (the run registry says so). */
  isRunning(runId: string): Promise<boolean>;
  /** Which toolpack declares a tool. */
  toolpackOf(tool: string): string | undefined;
  /** The agent's allowlist. */
  allows(agentId: string, tool: string): boolean;
}

/** How many runs' activations are kept; the least recently used go first. */
const MAX_ACTIVATIONS = 1024;

/**
 * Activations and the callSupport checks. Each check has its own refusal, in this order: the token
 * is valid; the activation is the calling agent's and its run still goes; the tool belongs to the
 * toolpack asking; the agent's allowlist includes it. Activations live as long as the process:
 * ended runs are refused by `isRunning`, and old entries are dropped past a bound.
 */
export function createActivationRegistry(options: ActivationRegistryOptions) {
  const byId = new Map<string, Activation>();
  const byRun = new LRUCache<string, Activation>({
    max: MAX_ACTIVATIONS,
    dispose: (activation) => byId.delete(activation.activationId),
  });

  /** The first three checks: a valid token, the calling agent's activation, a run still going. */
  async function checkActivation(given: RunnerActivation, agentId: string): Promise<Result<Activation>> {
    const activation = byId.get(given.activationId);
    if (!activation || !sameToken(activation.token, given.token)) {
      return fail('callSupport refused: the activation token is not valid.');
    }
    if (activation.agentId !== agentId) {
      return fail(
        `callSupport refused: activation ${activation.activationId} belongs to agent "${activation.agentId}", not "${agentId}".`,
      );
    }
    if (!(await options.isRunning(activation.runId))) {
      return fail(`callSupport refused: activation ${activation.activationId} has ended.`);
    }
    return ok(activation);
  }

  return {
    /** The activation of a run, made on the run's first toolpack call. */
    forRun(run: { runId: string; agentId: string; sessionKey: string; chargedTo?: string }): Activation {
      const existing = byRun.get(run.runId);
      if (existing) return existing;
      const activation: Activation = {
        activationId: `act_${randomUUID()}`,
        token: randomBytes(24).toString('base64url'),
        ...run,
      };
      byId.set(activation.activationId, activation);
      byRun.set(run.runId, activation);
      return activation;
    },
    checkActivation,
    /** Every callSupport check, in order. */
    async check(request: SupportCheck): Promise<Result<Activation>> {
      const { tool, toolpackId, agentId } = request;
      const checked = await checkActivation(request.activation, agentId);
      if (!checked.ok) return checked;
      if (options.toolpackOf(tool) !== toolpackId) {
        return fail(`callSupport refused: tool "${tool}" is not part of toolpack "${toolpackId}".`);
      }
      if (!options.allows(agentId, tool)) {
        return fail(`callSupport refused: tool "${tool}" is not in agent "${agentId}"'s allowlist.`);
      }
      return checked;
    },
  };
}

export type ActivationRegistry = ReturnType<typeof createActivationRegistry>;

function sameToken(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
