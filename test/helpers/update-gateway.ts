import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'vitest';
import { freePort } from './machine.js';
import {
  PROCESS_TEST_TOKEN,
  pollUntil,
  request,
  sendMessage,
  WEBCHAT_SESSION_KEY,
  writeConfig,
} from './process.js';
import { makeUpdateWorld } from './update-remote.js';

/** The update ledger as the update tests read it. */
export interface Ledger {
  run?: {
    id: string;
    phase: string;
    from: { commit: string };
    to: { commit: string };
    cause?: { phase: string; reason: string };
    rollback?: { outcome: string };
    gateway: { pid: number; launch: { supervisor: string } };
    lease: { pid: number };
    canaryPid?: number;
    phases?: { phase: string; at: number }[];
    durations?: Record<string, number>;
    noted?: boolean;
    migration?: { outcome: string; changes?: string; approved?: { by: string } };
  };
  history: { id: string; phase: string }[];
  rolledBack: string[];
}

const OUTCOMES = ['done', 'failed', 'rolled-back', 'rollback-failed', 'interrupted'];

/**
 * What every update test needs besides its gateway: the world (a bare remote of this repository's
 * HEAD and the checkout the gateway runs from, update-remote.ts), the gateway's config (a fake
 * model, the web chat's owner token, the watch window), and readers of the ledger, /readyz and the
 * notes the web chat session was given.
 */
export async function makeUpdateRig(dir: string, options: { modelUrl: string; watchMs: number }) {
  const world = await makeUpdateWorld(dir);
  const stateDir = path.join(dir, 'state');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const configPath = await writeConfig(
    dir,
    {
      stateDir,
      http: { port, token: PROCESS_TEST_TOKEN },
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: options.modelUrl } },
      agents: { main: { model: 'fake' } },
      update: { watchMs: options.watchMs, startTimeoutMs: 60_000 },
      gateway: { crashLoop: { uncleanStarts: 0 } },
    },
    'gateway.jsonc',
  );

  const readLedger = async (): Promise<Ledger> =>
    JSON.parse(await readFile(path.join(stateDir, 'update', 'ledger.json'), 'utf8')) as Ledger;

  const readyz = async () =>
    (await request<{ ready: boolean; version?: { commit?: string } }>(url, 'GET', '/readyz')).body;

  /** The system entries of the web chat session: restart notes are recorded there. */
  async function notes(): Promise<string[]> {
    const transcript = await request<{ entries: { role: string; text: string }[] }>(
      url,
      'GET',
      `/api/sessions/${encodeURIComponent(WEBCHAT_SESSION_KEY)}/transcript`,
    );
    return (transcript.body.entries ?? [])
      .filter((entry) => entry.role === 'system')
      .map((entry) => entry.text);
  }

  /** Waits for the run to reach an outcome (phases are slow: a build, a canary, a watch window). */
  async function outcome(runId?: string): Promise<NonNullable<Ledger['run']>> {
    return pollUntil(
      'the update run to end',
      async () => {
        const { run } = await readLedger();
        if (!run || (runId && run.id !== runId)) return undefined;
        if (!OUTCOMES.includes(run.phase)) return undefined;
        // The phase times, for whoever reads the test's output (the bench reports medians).
        console.info(`update ${run.id}: ${run.phase}`, JSON.stringify(run.durations));
        return run;
      },
      { timeoutMs: 400_000, intervalMs: 500 },
    );
  }

  /** `/update run` from the web chat as the owner; resolves to the run's id. */
  async function askForUpdate(): Promise<string> {
    const answer = await sendMessage(url, '/update run');
    const text = answer.body.replies[0]?.text ?? '';
    expect(text).toMatch(/^Updating \w{7} → \w{7} \(run [\w-]+\)/);
    return /\(run ([\w-]+)\)/.exec(text)?.[1] ?? '';
  }

  /** The end of a run's updater log (for a failure's message). */
  async function updaterLog(runId: string): Promise<string> {
    const text = await readFile(path.join(stateDir, 'update', 'runs', runId, 'updater.log'), 'utf8').catch(
      (error: Error) => error.message,
    );
    return text.slice(-2000);
  }

  /**
   * Waits until the run `runId` is in `phase`, reading the ledger every 5 ms (the switch lasts a
   * few hundred); throws when the run passed it or ended first.
   */
  async function waitForPhase(runId: string, phase: string): Promise<NonNullable<Ledger['run']>> {
    const deadline = Date.now() + 400_000;
    while (Date.now() < deadline) {
      const { run } = await readLedger().catch(() => ({ run: undefined }));
      if (run?.id === runId) {
        if (run.phase === phase) return run;
        if (OUTCOMES.includes(run.phase) || run.phases?.some((entry) => entry.phase === phase))
          throw new Error(
            `run ${runId} is at ${run.phase} (${run.cause?.reason ?? 'no cause'}): it did not stop at ${phase} long enough to be seen; the updater's log ends: ${await updaterLog(runId)}`,
          );
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`timed out waiting for run ${runId} to reach ${phase}`);
  }

  return {
    world,
    stateDir,
    configPath,
    url,
    readLedger,
    readyz,
    notes,
    outcome,
    askForUpdate,
    waitForPhase,
  };
}

/** Kills whatever gateway an updater left running (it is detached: not the test's child). */
export async function killDetachedGateway(stateDir: string): Promise<void> {
  const pid = Number((await readFile(path.join(stateDir, 'gateway.pid'), 'utf8').catch(() => '')).trim());
  if (pid > 0) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
}
