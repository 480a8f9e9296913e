import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/base/config/index.js';
import { ConfigError } from '../../src/base/errors/index.js';
import {
  describeProblem,
  PERSONA_FIELDS,
  parseFrontmatter,
  scanSkills,
  skillCatalogText,
} from '../../src/base/personas/index.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';

const root = path.resolve(import.meta.dirname, '../..');
const parse = (text: string) => parseFrontmatter(text, 'agents/ops.md', PERSONA_FIELDS);
const problems = (text: string) => {
  const result = parse(text);
  return result.ok ? [] : result.problems.map(describeProblem);
};

describe('the frontmatter parser', () => {
  it('reads the fields and the Markdown body of a good file', () => {
    const result = parse(
      '---\nid: ops\nname: Ops\ntools: [file.read, "schedule.*"]\nmodel: [a, b]\n---\n# Hello\nBody\n',
    );
    expect(result).toEqual({
      ok: true,
      value: {
        fields: { id: 'ops', name: 'Ops', tools: ['file.read', 'schedule.*'], model: ['a', 'b'] },
        lines: { id: 2, name: 3, tools: 4, model: 5 },
        body: '# Hello\nBody\n',
      },
    });
  });

  it('names the file, the line and the field of a field of the wrong type', () => {
    expect(problems('---\nid: ops\nname: Ops\n\ntools: file.read\n---\nBody')).toEqual([
      'agents/ops.md:5: tools: must be a list of tool names',
    ]);
    expect(problems('---\nname: [a, b]\n---\n')).toEqual([
      'agents/ops.md:2: name: must be a name (the agent’s display name)',
    ]);
    expect(problems('---\nid: Ops Agent\n---\n')).toEqual([
      'agents/ops.md:2: id: must be the agent id (lowercase letters, digits, `_`, `-`)',
    ]);
    expect(problems('---\nskills:\n  - ok\n  - 7\n---\n')).toEqual([
      'agents/ops.md:2: skills: must be a list of skill names',
    ]);
  });

  it('refuses an unknown field, naming it and its line', () => {
    expect(problems('---\nid: ops\ncolour: blue\n---\n')).toEqual([
      'agents/ops.md:3: colour: unknown field (known: id, name, description, tools, model, skills)',
    ]);
  });

  it('refuses a file without its opening or closing ---', () => {
    expect(problems('---\nid: ops\nBody without the closing line\n')).toEqual([
      "agents/ops.md:1: frontmatter: has no closing '---' line",
    ]);
    expect(problems('id: ops\n---\n')).toEqual([
      "agents/ops.md:1: frontmatter: must start with a '---' line",
    ]);
  });

  it('refuses bad YAML and a duplicate field with their line', () => {
    expect(problems('---\nid: ops\ntools: [a, b\n---\n')[0]).toMatch(
      /^agents\/ops\.md:\d: frontmatter: bad YAML: /,
    );
    expect(problems('---\nid: ops\nname: A\nname: B\n---\n')[0]).toMatch(
      /^agents\/ops\.md:4: frontmatter: bad YAML: /,
    );
    expect(problems('---\n- a\n- b\n---\n')).toEqual([
      'agents/ops.md:2: frontmatter: must be a YAML mapping of fields',
    ]);
  });
});

describe('personas in the config', () => {
  let dir = '';
  afterEach(() => removeDir(dir));

  it('loads the shipped example personas, the entry overriding their fields', async () => {
    const loaded = await loadConfig({
      configPath: path.join(root, 'config/gateway.example.jsonc'),
      environment: {},
    });
    const { ops, reviewer } = loaded.config.agents;
    expect(ops?.displayName).toBe('Ops');
    expect(ops?.tools).toContain('shell.exec');
    expect(ops?.systemPrompt).toMatch(/^You are the ops team's engineer on call/);
    expect(reviewer?.tools).toEqual(['file.read', 'web.fetch', 'ask_user', 'skills.load']);
    // The entry's own displayName wins over the persona's `name`.
    expect(reviewer?.displayName).toBe('Code reviewer');
  });

  it('refuses a config whose persona has a bad field, naming the file, line and field', async () => {
    dir = await makeTempDir('personas-');
    await mkdir(path.join(dir, 'agents'));
    await writeFile(
      path.join(dir, 'agents/ops.md'),
      '---\nid: ops\nname: Ops\ntools: shell.exec\n---\nBe careful.\n',
    );
    const configPath = path.join(dir, 'gateway.jsonc');
    await writeFile(
      configPath,
      JSON.stringify({ agents: { ops: { persona: './agents/ops.md' } }, defaultAgent: 'ops' }),
    );
    const error = await loadConfig({ configPath, environment: {} }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toEqual([
      { path: '/agents/ops/persona', message: 'agents/ops.md:4: tools: must be a list of tool names' },
    ]);
  });

  it('refuses a persona whose id is another agent’s, and one that is missing', async () => {
    dir = await makeTempDir('personas-');
    await writeFile(path.join(dir, 'ops.md'), '---\nid: other\n---\n');
    const configPath = path.join(dir, 'gateway.jsonc');
    const agents = { main: { persona: 'ops.md' }, two: { persona: 'missing.md' } };
    await writeFile(configPath, JSON.stringify({ agents }));
    const error = (await loadConfig({ configPath, environment: {} }).catch(
      (caught: unknown) => caught,
    )) as ConfigError;
    expect(error.issues).toEqual([
      {
        path: '/agents/main/persona',
        message: 'ops.md:2: id: is "other" but the persona is used by agent "main"',
      },
      { path: '/agents/two/persona', message: 'missing.md: persona: cannot read: ENOENT' },
    ]);
  });
});

describe('a personas folder', () => {
  let dir = '';
  afterEach(() => removeDir(dir));

  it('makes an agent of each persona by its id, beside main, an entry of that id winning', async () => {
    dir = await makeTempDir('personas-');
    await mkdir(path.join(dir, 'personas'));
    await writeFile(
      path.join(dir, 'personas/ops.md'),
      '---\nid: ops\nname: Ops\ntools: [shell.exec]\n---\nOn call.\n',
    );
    await writeFile(path.join(dir, 'personas/docs.md'), '---\nid: docs\nname: Docs\n---\nWrite docs.\n');
    await writeFile(path.join(dir, 'personas/notes.txt'), 'not a persona');
    const configPath = path.join(dir, 'gateway.jsonc');
    await writeFile(
      configPath,
      JSON.stringify({ personas: './personas', agents: { main: {}, docs: { displayName: 'Writer' } } }),
    );
    const { config } = await loadConfig({ configPath, environment: {} });
    expect(Object.keys(config.agents).sort()).toEqual(['docs', 'main', 'ops']);
    expect(config.agents.ops).toMatchObject({
      displayName: 'Ops',
      tools: ['shell.exec'],
      systemPrompt: 'On call.',
    });
    expect(config.agents.docs).toMatchObject({ displayName: 'Writer', systemPrompt: 'Write docs.' });
  });

  it('refuses a persona without an id and two with one id, naming their files', async () => {
    dir = await makeTempDir('personas-');
    await mkdir(path.join(dir, 'personas'));
    await writeFile(path.join(dir, 'personas/a.md'), '---\nid: ops\n---\n');
    await writeFile(path.join(dir, 'personas/b.md'), '---\nname: B\nid: ops\n---\n');
    await writeFile(path.join(dir, 'personas/c.md'), '---\nname: C\n---\n');
    const configPath = path.join(dir, 'gateway.jsonc');
    await writeFile(configPath, JSON.stringify({ personas: 'personas' }));
    const error = (await loadConfig({ configPath, environment: {} }).catch(
      (caught: unknown) => caught,
    )) as ConfigError;
    expect(error.issues).toEqual([
      { path: '/personas', message: 'personas/b.md:3: id: "ops" is also the id of personas/a.md' },
      { path: '/personas', message: 'personas/c.md:1: id: is required in a personas folder' },
    ]);
  });
});

describe('skills', () => {
  let dir = '';
  afterEach(() => removeDir(dir));

  it('loads good SKILL.md folders with their resources and reports a bad one', async () => {
    dir = await makeTempDir('skills-');
    await mkdir(path.join(dir, 'skills/deploy/scripts'), { recursive: true });
    await writeFile(
      path.join(dir, 'skills/deploy/SKILL.md'),
      '---\nname: deploy\ndescription: Ship a release.\nlicense: MIT\n---\nStep 1.\n',
    );
    await writeFile(path.join(dir, 'skills/deploy/scripts/run.sh'), 'echo hi\n');
    await mkdir(path.join(dir, 'skills/broken'));
    await writeFile(path.join(dir, 'skills/broken/SKILL.md'), '---\nname: broken\nwhen: always\n---\n');
    const scan = await scanSkills([
      { directory: path.join(dir, 'skills'), shownAs: 'skills', required: true },
    ]);
    expect(scan.skills.map(({ name, body, resources }) => ({ name, body, resources }))).toEqual([
      { name: 'deploy', body: 'Step 1.', resources: [path.join('scripts', 'run.sh')] },
    ]);
    expect(scan.problems).toEqual([
      'skills/broken/SKILL.md:3: when: unknown field (known: name, description, license, allowed-tools, metadata, version)',
      'skills/broken/SKILL.md:1: description: is required (a sentence saying when to use the skill)',
    ]);
    expect(skillCatalogText(scan.skills)).toContain('- deploy: Ship a release.');
    expect(skillCatalogText(scan.skills)).not.toContain('Step 1.');
  });

  it('reports a missing folder only when it was asked for', async () => {
    const missing = path.join(root, 'no-such-skills-folder');
    expect((await scanSkills([{ directory: missing, shownAs: 'x', required: false }])).problems).toEqual([]);
    expect((await scanSkills([{ directory: missing, shownAs: 'x', required: true }])).problems).toEqual([
      'x: cannot read: ENOENT',
    ]);
  });
});
