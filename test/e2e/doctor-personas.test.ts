import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { runCli, writeConfig } from '../helpers/process.js';

// `switchboard doctor` (the built CLI) on persona files and skills: a bad persona refuses the
// config naming its file, line and field; a bad SKILL.md is reported while the rest is fine.

let dir: string;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-doctor-personas-');
  await mkdir(path.join(dir, 'agents'));
  await writeFile(path.join(dir, 'agents/ops.md'), '---\nid: ops\nmodel: 7\n---\nBody.\n');
  await mkdir(path.join(dir, 'skills/broken'), { recursive: true });
  await writeFile(
    path.join(dir, 'skills/broken/SKILL.md'),
    '---\nname: broken\ndescription: ok\nwhen: now\n',
  );
});

afterAll(() => removeDir(dir));

async function doctor(name: string, agents: Record<string, unknown>) {
  const file = await writeConfig(
    dir,
    { stateDir: path.join(dir, `${name}-state`), agents, defaultAgent: Object.keys(agents)[0] },
    `${name}.jsonc`,
  );
  return runCli(['doctor', '--config', file], { timeoutMs: 40_000 });
}

describe('doctor on personas and skills', () => {
  it('refuses a bad persona, naming the file, line and field', async () => {
    const result = await doctor('bad-persona', { ops: { persona: 'agents/ops.md' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      '/agents/ops/persona: agents/ops.md:3: model: must be a model name or a list of model names',
    );
  });

  it('reports a bad SKILL.md and fails, though the gateway could start', async () => {
    const result = await doctor('bad-skill', { main: {} });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('skills skipped (the gateway starts without them)');
    expect(result.stderr).toContain("skills/broken/SKILL.md:1: frontmatter: has no closing '---' line");
  });
});
