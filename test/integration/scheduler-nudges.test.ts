import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FakeRequest, FakeStep } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { sessionOf } from '../fakes/subagent-script.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { REPO_ROOT } from '../helpers/process.js';
import { cleanupAfterEach } from '../helpers/teardown.js';
import { NUDGE_CASES, type NudgeCase, type NudgeStep } from './scheduler-nudges.cases.js';

/**
 * Suzumio's nudge and monitor cases (its test/communication-policy.test.mjs and config-defaults
 * test), as data (scheduler-nudges.cases.ts) run against a real gateway: a fake model answers the
 * wake turns, a probe toolpack sends messages and records what each tick's hooks see (the clock,
 * the roster with the agents' states), and the clock is controlled (`Date` faked, moved by the
 * cases; timers real, so the scheduler ticks every 50 ms). A "no wake" step waits for three more
 * ticks of the hooks: each tick runs the hooks before the nudges and monitors, so the third one
 * starts after a whole pass of them.
 */

const PROBE = path.join(REPO_ROOT, 'test/fixtures/controller-toolpacks/supervision-probe');
const T0 = Date.parse('2030-01-07T08:00:00.000Z');
const cleanups = cleanupAfterEach();

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(T0);
});
afterEach(() => {
  vi.useRealTimers();
});

type Step = FakeStep | ((request: FakeRequest) => FakeStep);

async function setup(testCase: NudgeCase) {
  const scripts = new Map<string, Step[]>(
    Object.entries(testCase.script ?? {}).map(([agent, steps]) => [`agent:${agent}:main`, [...steps]]),
  );
  const model = await startFakeOpenAIServer({
    defaultStep: (request) => {
      const step = scripts.get(sessionOf(request))?.shift() ?? { text: 'noted' };
      return typeof step === 'function' ? step(request) : step;
    },
  });
  cleanups.push(() => model.close());
  const gateway: TestGateway = await startTestGateway({
    config: {
      tools: {
        toolpacks: [
          'core',
          { path: PROBE, id: 'supervision-probe' },
          ...(testCase.toolpacks ?? []).map((fixture) => ({
            path: path.join(REPO_ROOT, 'test/fixtures', fixture),
            id: path.basename(fixture),
          })),
        ],
      },
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-test-nudges' } },
      defaultAgent: 'pm',
      agents: { pm: { model: 'fake' }, worker: { model: 'fake' }, verifier: { model: 'fake' } },
      communication: { coordinatorAgent: 'pm' },
      scheduler: { tickMs: 50, ...testCase.scheduler },
      gateway: { drainTimeoutMs: 200 },
      ...(testCase.approvals ? { approvals: testCase.approvals } : {}),
    },
  });
  cleanups.push(() => gateway.dispose());
  const entry = async (name: string, body?: unknown) => {
    const response = await gateway.request(
      'POST',
      `/api/projects/default/tool-ui/supervision-probe/${name}`,
      body,
    );
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body;
  };
  const ticks = async () => (await entry('probe.ticks', {})).metadata as { count: number; last?: any };
  const wakes = (agent: string) =>
    model.received.filter((request) => sessionOf(request) === `agent:${agent}:main`);
  return { gateway, entry, ticks, wakes };
}

type Harness = Awaited<ReturnType<typeof setup>>;

/** The signals a wake turn carried (the text the waker writes into the main session). */
function signalsOf(request: FakeRequest | undefined): any[] {
  const marker = 'Signals (from the runtime, not a user): ';
  const messages: any[] = request?.body.messages ?? [];
  const text = String(
    [...messages].reverse().find((message) => String(message.content).includes(marker))?.content,
  );
  return JSON.parse(text.slice(text.indexOf(marker) + marker.length));
}

/**
 * Polls with real timers, counting attempts (not `expect.poll`, which moves a faked clock on by
 * its interval, and not a deadline in `Date`, which is frozen).
 */
async function until<T>(
  description: string,
  probe: () => Promise<T | undefined> | T | undefined,
): Promise<T> {
  for (let attempt = 0; attempt < 400; attempt += 1) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${description}`);
}

/** What the hooks saw on the tick `more` ticks from now. */
async function afterTicks(harness: Harness, more: number): Promise<any> {
  const start = (await harness.ticks()).count;
  return until(`${more} more ticks`, async () => {
    const seen = await harness.ticks();
    return seen.count >= start + more ? seen.last : undefined;
  });
}

async function runStep(harness: Harness, step: NudgeStep, counts: Map<string, number>): Promise<void> {
  if ('send' in step) {
    await harness.entry('probe.send', step.send);
  } else if ('restart' in step) {
    await harness.gateway.restart();
  } else if ('advanceMs' in step) {
    vi.setSystemTime(Date.now() + step.advanceMs);
  } else if ('wake' in step) {
    const index = (counts.get(step.wake) ?? 0) + 1;
    counts.set(step.wake, index - 1 + (step.requests ?? 1));
    await until(`wake ${index} of ${step.wake}`, () =>
      harness.wakes(step.wake).length >= index ? true : undefined,
    );
    // The turn ends before the case moves the clock: the nudges' delays count from its end.
    if (!step.endless)
      await until(`the end of wake ${index} of ${step.wake}`, async () => {
        const { last } = await harness.ticks();
        const seen = last?.agents.find((agent: any) => agent.id === step.wake);
        return seen && seen.state !== 'running' ? true : undefined;
      });
    const signals = signalsOf(harness.wakes(step.wake)[index - 1]);
    expect(signals, `wake ${index} of ${step.wake}`).toEqual(
      step.carries.map(({ payload, body, ...signal }) =>
        expect.objectContaining({
          ...signal,
          ...(payload || body
            ? {
                payload: expect.objectContaining({
                  ...payload,
                  ...(body ? { body: expect.stringMatching(body) } : {}),
                }),
              }
            : {}),
        }),
      ),
    );
  } else if ('noWake' in step) {
    await afterTicks(harness, 3);
    const extra = harness
      .wakes(step.noWake)
      .slice(counts.get(step.noWake) ?? 0)
      .map(signalsOf);
    expect(extra, `no further wake of ${step.noWake} (at ${new Date().toISOString()})`).toEqual([]);
  } else {
    const last = await afterTicks(harness, 2);
    const agent = last.agents.find((seen: any) => seen.id === step.state.agent);
    expect(agent).toMatchObject(step.state.shows);
    expect(last.listed.find((seen: any) => seen.id === step.state.agent)).toMatchObject({
      state: step.state.shows.state,
    });
  }
}

describe("Suzumio's scheduler nudges and monitors, against a running gateway", () => {
  it.each(NUDGE_CASES.map((testCase) => [testCase.name, testCase] as const))(
    '%s',
    async (_name, testCase) => {
      const harness = await setup(testCase);
      const counts = new Map<string, number>();
      for (const step of testCase.steps) await runStep(harness, step, counts);
    },
    60_000,
  );
});
