import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import type { Tool } from '../../src/engine/tools/index.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * Personas and skills through a real gateway and the OpenAI SDK against the fake model server,
 * which records each request: what the persona file and SKILL.md folders put in front of the model.
 */

const cleanups = cleanupAfterEach();

const addTool: Tool = {
  name: 'math.add',
  description: 'Adds two integers.',
  parameters: Type.Object({
    a: Type.Integer({ description: 'First.' }),
    b: Type.Integer({ description: 'Second.' }),
  }),
  execute: (input: any) => ({ ok: true, sum: input.a + input.b }),
};
const otherTool: Tool = {
  name: 'math.other',
  description: 'Not in the persona.',
  parameters: Type.Object({}),
  execute: () => ({ ok: true }),
};

const OPS_PERSONA = `---
id: main
name: Ops Persona
description: Answers alerts.
tools: [math.add, skills.load]
---
You are the on-call engineer. PERSONA-BODY-MARKER: always check the runbook first.
`;

async function directoryWith(files: Record<string, string>): Promise<string> {
  const dir = await makeTempDir('switchboard-personas-');
  cleanups.push(() => removeDir(dir));
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
  return dir;
}

async function gatewayIn(dir: string, agents: Record<string, unknown>) {
  const model = await startFakeOpenAIServer();
  cleanups.push(() => model.close());
  const models = { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-test' } };
  const gateway = await startTestGateway({ dir, config: { models, agents }, tools: [addTool, otherTool] });
  cleanups.push(() => gateway.stop());
  return { gateway, model };
}

function systemPrompt(request: any): string {
  return String(request.messages.find((message: any) => message.role === 'system')?.content ?? '');
}

function toolNamesOffered(request: any): string[] {
  return (request.tools ?? []).map((tool: any) => tool.function.name.replaceAll('__', '.')).sort();
}

async function reply(gateway: TestGateway, text: string): Promise<string> {
  const response = await gateway.send(text);
  expect(response.status).toBe(200);
  return response.body.replies.at(-1).text;
}

describe('a persona file', () => {
  it("drives the agent's prompt, name and tools", async () => {
    const dir = await directoryWith({ 'agents/ops.md': OPS_PERSONA, 'skills/deploy/SKILL.md': DEPLOY_SKILL });
    const { gateway, model } = await gatewayIn(dir, { main: { persona: './agents/ops.md', model: 'fake' } });
    model.push({ text: 'On it.' });
    expect(await reply(gateway, 'the disk is full')).toBe('On it.');
    const prompt = systemPrompt(model.requests[0]);
    expect(prompt).toContain('You are Ops Persona (agent "main")');
    expect(prompt).toContain('PERSONA-BODY-MARKER: always check the runbook first.');
    expect(toolNamesOffered(model.requests[0])).toEqual(['math.add', 'skills.load']);
  }, 30_000);

  it('with a bad field stops the start, naming the file, line and field', async () => {
    const bad = OPS_PERSONA.replace('tools: [math.add, skills.load]', 'tools: math.add');
    const dir = await directoryWith({ 'agents/ops.md': bad });
    const started = startTestGateway({
      dir,
      config: { agents: { main: { persona: './agents/ops.md' } } },
    });
    await expect(started).rejects.toThrow(
      '/agents/main/persona: agents/ops.md:5: tools: must be a list of tool names',
    );
  }, 30_000);

  it('with a bad field is refused by /config patch, and nothing is written', async () => {
    const dir = await directoryWith({
      'agents/bad.md': '---\nid: main\nname: Bad\ncolour: blue\n---\nBody.\n',
    });
    const { gateway } = await gatewayIn(dir, { main: { model: 'fake' } });
    const before = await readFile(gateway.configPath, 'utf8');
    const patch = { agents: { main: { persona: './agents/bad.md' } } };
    const answer = await reply(gateway, `/config patch ${JSON.stringify(patch)}`);
    expect(answer).toMatch(/^Refused: the new config is invalid; nothing was written/);
    expect(answer).toContain('agents/bad.md:4: colour: unknown field');
    expect(await readFile(gateway.configPath, 'utf8')).toBe(before);
  }, 30_000);
});

const DEPLOY_SKILL = `---
name: deploy
description: Ship a release to production.
---
SKILL-BODY-MARKER: tag the release, then run scripts/ship.sh.
`;

describe('skills', () => {
  it("reach the model as name and description; the body only through skills.load's result", async () => {
    const dir = await directoryWith({
      'skills/deploy/SKILL.md': DEPLOY_SKILL,
      'skills/deploy/scripts/ship.sh': 'echo ship\n',
      'skills/broken/SKILL.md': '---\nname: broken\ndescription: [not, text]\n---\n',
    });
    const { gateway, model } = await gatewayIn(dir, { main: { model: 'fake' } });
    model.push({ toolCalls: [{ name: 'skills.load', arguments: { name: 'deploy' } }] });
    model.push({ text: 'Deployed.' });
    expect(await reply(gateway, 'ship it')).toBe('Deployed.');
    const first = JSON.stringify(model.requests[0]);
    expect(systemPrompt(model.requests[0])).toContain('- deploy: Ship a release to production.');
    expect(first).not.toContain('SKILL-BODY-MARKER');
    expect(first).not.toContain('broken');
    const toolResult = model.requests[1].messages.find((message: any) => message.role === 'tool');
    expect(JSON.parse(toolResult.content)).toMatchObject({
      ok: true,
      name: 'deploy',
      body: 'SKILL-BODY-MARKER: tag the release, then run scripts/ship.sh.',
      resources: [path.join('scripts', 'ship.sh')],
    });
    // The bad SKILL.md is reported (file, line, field) and the others still load.
    expect(gateway.logLines.join('\n')).toContain('skills/broken/SKILL.md:3: description: must be');
  }, 30_000);

  it('an agent limited to some skills sees and loads only those', async () => {
    const other = DEPLOY_SKILL.replaceAll('deploy', 'rollback').replace('SKILL-BODY-MARKER', 'ROLLBACK');
    const dir = await directoryWith({
      'skills/deploy/SKILL.md': DEPLOY_SKILL,
      'skills/rollback/SKILL.md': other,
    });
    const { gateway, model } = await gatewayIn(dir, { main: { model: 'fake', skills: ['rollback'] } });
    model.push({ toolCalls: [{ name: 'skills.load', arguments: { name: 'deploy' } }] });
    model.push({ text: 'Cannot.' });
    await reply(gateway, 'ship it');
    expect(systemPrompt(model.requests[0])).toContain('- rollback: ');
    expect(systemPrompt(model.requests[0])).not.toContain('- deploy: ');
    expect(JSON.stringify(model.requests[1])).toContain('Unknown skill: deploy (yours: rollback)');
  }, 30_000);
});

describe('a restart', () => {
  it('rereads the persona and rescans the skills; a persona made bad is refused and the gateway keeps serving', async () => {
    const dir = await directoryWith({ 'agents/ops.md': OPS_PERSONA });
    const { gateway, model } = await gatewayIn(dir, { main: { persona: './agents/ops.md', model: 'fake' } });
    model.push({ text: 'Before.' });
    await reply(gateway, 'hello');
    expect(toolNamesOffered(model.requests[0])).toEqual(['math.add']);
    await writeFile(
      path.join(dir, 'agents/ops.md'),
      OPS_PERSONA.replace('PERSONA-BODY-MARKER', 'SECOND-BODY'),
    );
    await mkdir(path.join(dir, 'skills/deploy'), { recursive: true });
    await writeFile(path.join(dir, 'skills/deploy/SKILL.md'), DEPLOY_SKILL);
    await gateway.restart();
    expect(gateway.host.restarts).toBe(1);
    model.push({ text: 'After.' });
    expect(await reply(gateway, 'hello again')).toBe('After.');
    const prompt = systemPrompt(model.requests[1]);
    expect(prompt).toContain('SECOND-BODY');
    expect(prompt).toContain('- deploy: Ship a release to production.');
    expect(toolNamesOffered(model.requests[1])).toEqual(['math.add', 'skills.load']);

    await writeFile(
      path.join(dir, 'agents/ops.md'),
      OPS_PERSONA.replace('name: Ops Persona', 'name:\n  - Ops'),
    );
    await gateway.restart();
    expect(gateway.host.restarts).toBe(1);
    const refusal = gateway.logLines.find((line) => line.includes('Restart refused'));
    expect(refusal).toContain('agents/ops.md:3: name: must be a name');
    model.push({ text: 'Still here.' });
    expect(await reply(gateway, 'are you there?')).toBe('Still here.');
  }, 30_000);
});
