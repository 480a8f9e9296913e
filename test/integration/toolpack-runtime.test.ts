import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/base/config/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import type { ToolContext } from '../../src/engine/tools/index.js';
import {
  createToolpackRuntime,
  type LoadedToolpack,
  type ToolpackRuntime,
} from '../../src/extensions/toolpacks/index.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { REPO_ROOT } from '../helpers/process.js';
import { testToolContext } from '../helpers/tool-context.js';
import { loadToolpackFixture } from '../helpers/toolpacks.js';

/**
 * The runtime gives an agent's runner only the toolpacks with a tool the agent may use: a toolpack
 * outside its allowlist is not readable from its runner process.
 */

const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/runner-toolpacks');
const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });
let dir: string;
let runtime: ToolpackRuntime;
let toolpacks: LoadedToolpack[];

const load = (id: string) => loadToolpackFixture(path.join(FIXTURES, id), id);

function context(agentId: string): ToolContext {
  return testToolContext(logger, { agentId, sessionKey: `agent:${agentId}:main`, runId: `run-${agentId}` });
}

beforeAll(async () => {
  dir = await makeTempDir('switchboard-runtime-');
  const checked = validateConfig({
    agents: { builder: { tools: ['workbench.*'] }, reader: { tools: ['workbench.*', 'notes.read'] } },
    defaultAgent: 'builder',
  });
  if (!checked.ok) throw new Error(JSON.stringify(checked.error));
  toolpacks = [await load('workbench'), await load('private-notes')];
  runtime = createToolpackRuntime({
    config: checked.value,
    configPath: path.join(dir, 'gateway.jsonc'),
    stateDir: dir,
    toolpacks,
    isRunning: async () => true,
    support: async () => ({ output: 'supported' }),
    recordSignal: () => {},
    logger,
  });
});

afterAll(async () => {
  await runtime.stop();
  await removeDir(dir);
});

describe('the toolpack runtime', () => {
  it("hands the registry each tool's validator compiled by the loader, not its schema to compile again", () => {
    const validators = toolpacks.flatMap((toolpack) => toolpack.tools.map((tool) => tool.validate));
    expect(validators.length).toBeGreaterThan(0);
    expect(validators.every((validate) => typeof validate === 'function')).toBe(true);
    expect(runtime.tools.map((tool) => tool.validateParameters)).toEqual(validators);
  });

  it("keeps a toolpack outside an agent's allowlist out of that agent's runner", async () => {
    const read = runtime.tools.find((tool) => tool.name === 'workbench.read');
    if (!read) throw new Error('workbench.read is not registered');
    const notes = path.join(FIXTURES, 'private-notes', 'notes.txt');
    // builder may not use private-notes: its runner cannot read that directory.
    await expect(read.execute({ path: notes }, context('builder'))).rejects.toThrow(
      /access|restricted|denied/i,
    );
    // reader may: the same call in its own runner works.
    const allowed = (await read.execute({ path: notes }, context('reader'))) as { output: unknown };
    expect(String(allowed.output).length).toBeGreaterThan(0);
  });
});
