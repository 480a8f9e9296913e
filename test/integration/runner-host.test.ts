import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import {
  createRunnerHost,
  createRunnerSandbox,
  type RunnerActivation,
  type RunnerHost,
  type RunnerHostOptions,
  type RunnerSignalRequest,
  type RunnerSupportRequest,
} from '../../src/extensions/toolpacks/index.js';
import { activeResources, settledResources } from '../helpers/resources.js';
import { loadToolpackFixture } from '../helpers/toolpacks.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/runner-toolpacks/', import.meta.url));
const activation: RunnerActivation = { activationId: 'activation-1', token: 'secret-token-1' };

const loadFixture = (name: string) => loadToolpackFixture(path.join(FIXTURES, name));

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

let root: string;
let host: RunnerHost | undefined;
let logLines: Array<Record<string, unknown>>;
let supportRequests: RunnerSupportRequest[];
let signalRequests: RunnerSignalRequest[];

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'runner-host-')));
  logLines = [];
  supportRequests = [];
  signalRequests = [];
});

afterEach(async () => {
  await host?.stop();
  host = undefined;
  await rm(root, { recursive: true, force: true });
});

async function startHost(overrides: Partial<RunnerHostOptions> = {}): Promise<RunnerHost> {
  const { logger } = createLogger({
    level: 'debug',
    destination: { write: (line: string) => logLines.push(JSON.parse(line)) },
  });
  host = createRunnerHost({
    agentId: 'builder',
    project: 'default',
    toolpacks: [await loadFixture('workbench'), await loadFixture('incomplete')],
    workspace: path.join(root, 'workspace'),
    artifactsDir: path.join(root, 'artifacts', 'builder'),
    timeoutMs: 5_000,
    logger,
    // These tests follow the runner process by its pid, which a PID namespace hides; the sandbox has
    // its own tests (runner-sandbox.test.ts) with the same host.
    sandbox: createRunnerSandbox({ setting: 'off', logger }),
    callSupport: async (request) => {
      supportRequests.push(request);
      if ((request.input as { refuse?: boolean }).refuse) throw new Error('refused by the controller');
      return {
        output: `controller saw ${JSON.stringify(request.input)}`,
        title: 'support',
        metadata: { n: 1 },
      };
    },
    recordSignal: async (request) => {
      signalRequests.push(request);
    },
    ...overrides,
  });
  return host;
}

function call(
  target: RunnerHost,
  tool: string,
  input: unknown = {},
  options: Partial<RunnerActivation> = {},
) {
  const toolpackId = tool.split('.')[0] as string;
  return target.call({ toolpackId, tool, input, activation: { ...activation, ...options } });
}

async function pidOf(target: RunnerHost): Promise<number> {
  const answer = await call(target, 'workbench.pid');
  if (!answer.ok) throw new Error(answer.error);
  return answer.value.output as number;
}

describe('toolpack runner host', () => {
  it("returns the handler's output with the runner context", async () => {
    const runner = await startHost();
    const answer = await call(runner, 'workbench.echo', { text: 'hello' });
    const workspace = path.join(root, 'workspace');
    expect(answer).toEqual({
      ok: true,
      value: {
        output: { text: 'hello' },
        title: 'echo',
        metadata: {
          project: 'default',
          agentId: 'builder',
          activationId: 'activation-1',
          workspace,
          toolpackId: 'workbench',
          cwd: workspace,
        },
      },
    });
  });

  it('starts one process for calls that arrive together, and a bare return value becomes { output }', async () => {
    const runner = await startHost();
    const [first, second] = await Promise.all([call(runner, 'workbench.pid'), call(runner, 'workbench.pid')]);
    expect(first).toEqual(second);
    expect(first).toEqual({ ok: true, value: { output: expect.any(Number) } });
    expect(logLines.filter((line) => line.msg === 'toolpack runner started')).toHaveLength(1);
  });

  it('confines the runner: reads its toolpacks, workspace and artifacts, writes only the last two', async () => {
    const runner = await startHost();
    expect(await call(runner, 'workbench.echo')).toMatchObject({ ok: true });
    const started = logLines.find((line) => line.msg === 'toolpack runner started');
    const bootstrap = fileURLToPath(
      new URL('../../src/extensions/toolpacks/runner/runner-process.mjs', import.meta.url),
    );
    const fixtures = await realpath(FIXTURES);
    const [workspace, artifacts] = [path.join(root, 'workspace'), path.join(root, 'artifacts', 'builder')];
    expect(started?.execArgv).toEqual([
      expect.stringMatching(/^--(experimental-)?permission$/),
      `--allow-fs-read=${bootstrap}`,
      `--allow-fs-read=${path.join(fixtures, 'workbench')}`,
      `--allow-fs-read=${path.join(fixtures, 'incomplete')}`,
      `--allow-fs-read=${workspace}`,
      `--allow-fs-read=${artifacts}`,
      `--allow-fs-write=${workspace}`,
      `--allow-fs-write=${artifacts}`,
      '--disable-warning=ExperimentalWarning',
    ]);
  });

  it("runs the spec's review-tools runner unchanged", async () => {
    const runner = await startHost({ toolpacks: [await loadFixture('../toolpacks/review-tools')] });
    const answer = await runner.call({
      toolpackId: 'review-tools',
      tool: 'review.summarize',
      input: { summary: 'two nits' },
      activation,
    });
    expect(answer).toEqual({ ok: true, value: { output: 'Review summary recorded: two nits' } });
    expect(supportRequests).toEqual([
      { activation, toolpackId: 'review-tools', tool: 'review.summarize', input: { summary: 'two nits' } },
    ]);
  });

  it('makes one toolpack instance per activation and keeps it', async () => {
    const runner = await startHost();
    const first = await call(runner, 'workbench.instance');
    const again = await call(runner, 'workbench.instance');
    const other = await call(runner, 'workbench.instance', {}, { activationId: 'activation-2' });
    expect(first).toEqual(again);
    expect(first).toEqual({ ok: true, value: { output: expect.any(Number) } });
    expect(other).toEqual({ ok: true, value: { output: expect.any(Number) } });
    expect(other).not.toEqual(first);
  });

  it('runs callSupport through the host callback and back into the handler', async () => {
    const runner = await startHost();
    const answer = await call(runner, 'workbench.support', { summary: 'looks good' });
    expect(supportRequests).toEqual([
      { activation, toolpackId: 'workbench', tool: 'workbench.support', input: { summary: 'looks good' } },
    ]);
    expect(answer).toEqual({
      ok: true,
      value: { output: 'controller saw {"summary":"looks good"}', title: 'support', metadata: { n: 1 } },
    });
    expect(await call(runner, 'workbench.support', { refuse: true })).toEqual({
      ok: false,
      error: 'workbench.support failed: refused by the controller',
    });
  });

  it('hands recordSignal to the host callback with the activation', async () => {
    const runner = await startHost();
    const signal = { kind: 'review.ready', targetAgent: 'pm', priority: 'P1', payload: { n: 2 } };
    expect(await call(runner, 'workbench.signal', signal)).toEqual({
      ok: true,
      value: { output: 'recorded' },
    });
    expect(signalRequests).toEqual([{ activation, toolpackId: 'workbench', signal }]);
  });

  it('writes inside the workspace and the artifacts directory, and nowhere else', async () => {
    const runner = await startHost();
    expect(await call(runner, 'workbench.write', { path: 'notes.md', content: 'inside' })).toMatchObject({
      ok: true,
    });
    expect(await readFile(path.join(root, 'workspace', 'notes.md'), 'utf8')).toBe('inside');
    const artifact = path.join(root, 'artifacts', 'builder', 'report.md');
    expect(await call(runner, 'workbench.write', { path: artifact, content: 'report' })).toMatchObject({
      ok: true,
    });
    expect(await readFile(artifact, 'utf8')).toBe('report');

    const outside = path.join(root, 'outside.txt');
    expect(await call(runner, 'workbench.write', { path: outside, content: 'escaped' })).toEqual({
      ok: false,
      error: 'workbench.write failed: Access to this API has been restricted',
    });
    const sibling = path.join(root, 'artifacts', 'someone-else.md');
    expect(await call(runner, 'workbench.write', { path: sibling, content: 'x' })).toMatchObject({
      ok: false,
    });
    await expect(readFile(outside)).rejects.toThrow(/ENOENT/);
  });

  it("reads its own toolpack but not another toolpack's directory", async () => {
    const runner = await startHost();
    const own = await call(runner, 'workbench.read', {
      path: path.join(FIXTURES, 'workbench', 'runner.mjs'),
    });
    expect(own.ok).toBe(true);
    const notes = path.join(await realpath(FIXTURES), 'private-notes', 'notes.txt');
    expect(await call(runner, 'workbench.read', { path: notes })).toEqual({
      ok: false,
      error: 'workbench.read failed: Access to this API has been restricted',
    });
    await writeFile(path.join(root, 'secret.txt'), 'gateway only');
    expect(await call(runner, 'workbench.read', { path: path.join(root, 'secret.txt') })).toMatchObject({
      ok: false,
    });
  });

  it('times out a hung handler and keeps a runner that still answers', async () => {
    const runner = await startHost({ timeoutMs: 300 });
    const pid = await pidOf(runner);
    expect(await call(runner, 'workbench.hang')).toEqual({
      ok: false,
      error: 'Tool workbench.hang timed out after 300 ms',
    });
    expect(await pidOf(runner)).toBe(pid);
  });

  it('kills a runner whose event loop is stuck after a timeout; the next call gets a new one', async () => {
    const runner = await startHost({ timeoutMs: 300 });
    const pid = await pidOf(runner);
    expect(await call(runner, 'workbench.spin')).toEqual({
      ok: false,
      error: 'Tool workbench.spin timed out after 300 ms',
    });
    const next = await pidOf(runner);
    expect(next).not.toBe(pid);
    await expect.poll(() => isRunning(pid)).toBe(false);
  });

  it('fails the call of a runner that crashes; the next call works in a new process', async () => {
    const runner = await startHost();
    const pid = await pidOf(runner);
    expect(await call(runner, 'workbench.crash')).toEqual({
      ok: false,
      error: 'the toolpack runner for agent builder exited (code 1)',
    });
    const next = await pidOf(runner);
    expect(next).not.toBe(pid);
    expect(await call(runner, 'workbench.echo', { text: 'again' })).toMatchObject({ ok: true });
  });

  it('turns a throwing handler into a tool error and logs its stack', async () => {
    const runner = await startHost();
    expect(await call(runner, 'workbench.throw')).toEqual({
      ok: false,
      error: 'workbench.throw failed: broken on purpose',
    });
    const logged = logLines.find((line) => line.msg === 'workbench.throw failed: broken on purpose');
    expect(logged?.stack).toContain('runner.mjs');
    expect(await call(runner, 'workbench.echo')).toMatchObject({ ok: true });
  });

  it('rejects a toolpack whose runner misses a declared handler, naming the tool', async () => {
    const runner = await startHost();
    const expected = {
      ok: false,
      error:
        'toolpack incomplete is rejected: its runner module has no handler for declared tool "incomplete.second"',
    };
    expect(await call(runner, 'incomplete.first')).toEqual(expected);
    expect(await call(runner, 'incomplete.second')).toEqual(expected);
    expect(await call(runner, 'workbench.echo')).toMatchObject({ ok: true });
  });

  it('refuses toolpacks and tools it was not given without starting a runner', async () => {
    const runner = await startHost();
    expect(await call(runner, 'notes.read')).toEqual({
      ok: false,
      error: 'toolpack notes is not available to agent builder',
    });
    expect(await runner.call({ toolpackId: 'workbench', tool: 'notes.read', input: {}, activation })).toEqual(
      {
        ok: false,
        error: 'Tool notes.read is not declared by toolpack workbench',
      },
    );
    expect(logLines.some((line) => line.msg === 'toolpack runner started')).toBe(false);
  });

  it('ends a call when its signal aborts', async () => {
    const runner = await startHost();
    const controller = new AbortController();
    const pending = runner.call({
      toolpackId: 'workbench',
      tool: 'workbench.hang',
      input: {},
      activation,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 100);
    expect(await pending).toEqual({ ok: false, error: 'Tool workbench.hang was aborted' });
  });

  it("forwards the runner's stdout and stderr to the log", async () => {
    const runner = await startHost();
    expect(await call(runner, 'workbench.print', { text: 'visible' })).toMatchObject({ ok: true });
    await expect.poll(() => logLines.filter((line) => String(line.msg).endsWith(': visible')).length).toBe(2);
  });

  it('stop() kills the runner and leaves no handles; a later call starts a new one', async () => {
    // The test runner's own start-up requests settle first; the baseline is taken after them.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const before = activeResources();
    const runner = await startHost();
    const pid = await pidOf(runner);
    const inFlight = call(runner, 'workbench.hang');
    await runner.stop();
    expect(await inFlight).toEqual({ ok: false, error: 'the toolpack runner for agent builder was stopped' });
    expect(isRunning(pid)).toBe(false);
    expect(await settledResources(before)).toEqual(before);

    const next = await pidOf(runner);
    expect(next).not.toBe(pid);
    await runner.stop();
    expect(await settledResources(before)).toEqual(before);
  });
});
