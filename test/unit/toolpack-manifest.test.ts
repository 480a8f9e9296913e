import { cp, mkdir, mkdtemp, readdir, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/base/config/index.js';
import {
  loadToolpackManifest,
  loadToolpacks,
  MANIFEST_FILE,
  type ToolpackRule,
} from '../../src/extensions/toolpacks/index.js';

const fixtures = path.resolve(import.meta.dirname, '../fixtures');
const reviewTools = path.join(fixtures, 'toolpacks/review-tools');
const GOOD = 'good-webui-only';

/** The one rule each fixture in `bad-toolpacks/` breaks; a fixture missing here fails the first test. */
const EXPECTED: Record<string, ToolpackRule> = {
  'manifest-missing': 'manifest-missing',
  'manifest-json': 'manifest-json',
  'manifest-schema-no-tools': 'manifest-schema',
  'manifest-schema-blank-description': 'manifest-schema',
  'manifest-schema-webui-title': 'manifest-schema',
  'id-characters': 'id-characters',
  'id-mismatch': 'id-mismatch',
  'id-dot-segment': 'id-dot-segment',
  'manifest-symlink-escape': 'manifest-symlink-escape',
  'manifest-too-large': 'manifest-too-large',
  'path-http': 'path-http',
  'path-absolute': 'path-absolute',
  'path-escape': 'path-escape',
  'path-escape-nested': 'path-escape',
  'path-symlink-escape': 'path-symlink-escape',
  'module-extension': 'module-extension',
  'module-extension-runner': 'module-extension',
  'controller-missing': 'controller-missing',
  'runner-missing': 'runner-missing',
  'tool-name-invalid': 'tool-name-invalid',
  'tool-name-double-underscore': 'tool-name-invalid',
  'tool-duplicate-in-manifest': 'tool-duplicate-in-manifest',
  'input-schema-not-object': 'input-schema-invalid',
  'input-schema-uncompilable': 'input-schema-invalid',
  'input-schema-webui': 'input-schema-invalid',
  'webui-duplicate-entry': 'webui-duplicate-entry',
  'webui-kind': 'webui-kind',
  'webui-id-invalid': 'webui-id-invalid',
};

let workspace: string;
let configPath: string;

/** Writes a toolpack with a controller, and a runner when it declares tools. */
async function writeToolpack(relative: string, manifest: Record<string, unknown>): Promise<void> {
  const directory = path.join(workspace, relative);
  await mkdir(directory, { recursive: true });
  await writeFile(path.join(directory, MANIFEST_FILE), JSON.stringify(manifest));
  await writeFile(path.join(directory, 'controller.mjs'), 'export default () => ({});\n');
  await writeFile(path.join(directory, 'runner.mjs'), 'export default () => ({});\n');
}

function tool(name: string) {
  return { name, description: `The ${name} tool.`, inputSchema: { type: 'object', properties: {} } };
}

beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'switchboard-toolpacks-'));
  configPath = path.join(workspace, 'gateway.jsonc');
  // A temp copy, so the two cases git cannot carry as plain files are made here.
  await cp(path.join(fixtures, 'bad-toolpacks'), path.join(workspace, 'bad-toolpacks'), { recursive: true });
  const bad = path.join(workspace, 'bad-toolpacks');
  await rename(
    path.join(bad, 'manifest-json/broken-manifest.txt'),
    path.join(bad, 'manifest-json', MANIFEST_FILE),
  );
  await mkdir(path.join(workspace, 'outside'));
  await writeFile(path.join(workspace, 'outside/controller.mjs'), 'export default () => ({});\n');
  await symlink(
    path.join(workspace, 'outside/controller.mjs'),
    path.join(bad, 'path-symlink-escape/controller.mjs'),
  );
  // A valid manifest, but outside the toolpack: only the symlink rule refuses it.
  await writeFile(
    path.join(workspace, 'outside', MANIFEST_FILE),
    JSON.stringify({ id: 'manifest-symlink-escape', tools: [tool('escaped.run')] }),
  );
  await symlink(
    path.join(workspace, 'outside', MANIFEST_FILE),
    path.join(bad, 'manifest-symlink-escape', MANIFEST_FILE),
  );
  // A valid manifest padded past the 1 MiB limit (too big to keep in git).
  await writeFile(
    path.join(bad, 'manifest-too-large', MANIFEST_FILE),
    `${JSON.stringify({ id: 'manifest-too-large', tools: [tool('large.run')] })}${' '.repeat(2 * 1024 * 1024)}`,
  );
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('bad toolpack fixtures', () => {
  it('has at least 20 bad toolpacks, each with the rule it breaks, and one good one', async () => {
    const cases = (await readdir(path.join(fixtures, 'bad-toolpacks'))).sort();
    expect(cases).toEqual([...Object.keys(EXPECTED), GOOD].sort());
    expect(Object.keys(EXPECTED).length).toBeGreaterThanOrEqual(20);
  });

  it.each(Object.entries(EXPECTED))('%s is rejected under %s, naming the manifest', async (name, rule) => {
    const result = await loadToolpackManifest({
      directory: `bad-toolpacks/${name}`,
      configuredId: name,
      configPath,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.map((problem) => problem.rule)).toEqual([rule]);
    const [problem] = result.error;
    expect(problem?.file).toBe(path.join(workspace, 'bad-toolpacks', name, MANIFEST_FILE));
    expect(problem?.message).not.toBe('');
  });

  it('skips every bad toolpack and loads the good one beside them', async () => {
    const names = [...Object.keys(EXPECTED), GOOD];
    const entries = names.map((name) => ({ path: `./bad-toolpacks/${name}`, id: name }));
    const loaded = await loadToolpacks({ entries, configPath, builtinToolNames: [] });
    expect(loaded.toolpacks.map((toolpack) => toolpack.id)).toEqual([GOOD]);
    expect(loaded.problems.map((problem) => problem.rule)).toEqual(Object.values(EXPECTED));
  });

  it('loads a WebUI-only toolpack without a runner', async () => {
    const result = await loadToolpackManifest({
      directory: `bad-toolpacks/${GOOD}`,
      configuredId: GOOD,
      configPath,
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const directory = await realpath(path.join(workspace, 'bad-toolpacks', GOOD));
    expect(result.value).toMatchObject({ id: GOOD, directory, tools: [] });
    expect(result.value.runnerModule).toBeUndefined();
    expect(result.value.controllerModule).toBe(path.join(directory, 'controller.mjs'));
    expect(result.value.webui.map((entry) => [entry.id, entry.kind])).toEqual([
      ['notes.list', 'panel'],
      ['notes.add', 'action'],
    ]);
  });
});

describe('a single toolpack', () => {
  it("loads the spec's review-tools example unchanged", async () => {
    const result = await loadToolpackManifest({
      directory: path.relative(workspace, reviewTools),
      configuredId: 'review-tools',
      configPath,
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toEqual({
      id: 'review-tools',
      directory: reviewTools,
      manifestFile: path.join(reviewTools, MANIFEST_FILE),
      runnerModule: path.join(reviewTools, 'runner.mjs'),
      controllerModule: path.join(reviewTools, 'controller.mjs'),
      tools: [
        {
          name: 'review.summarize',
          description: 'Summarize review findings.',
          inputSchema: {
            type: 'object',
            properties: { summary: { type: 'string' } },
            required: ['summary'],
            additionalProperties: false,
          },
          validate: expect.any(Function),
        },
      ],
      webui: [
        {
          id: 'review.stats',
          title: 'Review statistics',
          description: 'Show cached review counts.',
          kind: 'panel',
        },
      ],
    });
    // The loader's compiled schema is the one the tool registry validates arguments with.
    const [summarize] = result.value.tools;
    expect(summarize?.validate({ summary: 'ok' })).toBe(true);
    expect(summarize?.validate({ summary: 1, extra: true })).toBe(false);
    expect(summarize?.validate.errors?.map((error) => error.keyword).sort()).toEqual([
      'additionalProperties',
      'type',
    ]);
  });

  it('refuses an HTTP(S) path or a missing directory in the config entry, naming the config file', async () => {
    for (const [directory, rule] of [
      ['https://example.com/toolpacks/review', 'path-http'],
      ['HTTP://example.com/review', 'path-http'],
      ['./no-such-toolpack', 'directory-missing'],
      [`./bad-toolpacks/${GOOD}/controller.mjs`, 'directory-missing'],
    ] as const) {
      const result = await loadToolpackManifest({ directory, configuredId: 'review-tools', configPath });
      expect(result.ok ? [] : result.error).toEqual([
        { file: configPath, rule, message: expect.any(String) },
      ]);
    }
  });

  it('reads a WebUI entry without kind as a panel, and refuses a toolpack that offers nothing, as Suzumio does', async () => {
    await writeToolpack('kindless', {
      id: 'kindless',
      tools: [],
      webui: [{ id: 'kindless.board', title: 'Board' }],
    });
    const kindless = await loadToolpackManifest({ directory: 'kindless', configPath });
    expect(kindless.ok && kindless.value.webui).toEqual([
      { id: 'kindless.board', title: 'Board', kind: 'panel' },
    ]);
    await writeToolpack('empty-pack', { id: 'empty-pack', tools: [] });
    const empty = await loadToolpackManifest({ directory: 'empty-pack', configPath });
    expect(empty.ok).toBe(false);
    if (empty.ok) return;
    expect(empty.error).toEqual([
      expect.objectContaining({
        rule: 'nothing-offered',
        pointer: '/tools',
        message: expect.stringContaining('declare at least one tool in "tools" or one entry in "webui"'),
      }),
    ]);
  });

  it('reads leniently where Suzumio does: unknown keys, default and blank module paths', async () => {
    await writeToolpack('lenient', {
      id: 'lenient',
      version: '2.0.0',
      runner: '  ',
      tools: [{ ...tool('lenient.run'), annotations: { readOnly: true } }],
      webui: [{ id: 'lenient.panel', title: 'Panel', kind: 'panel', icon: 'gauge' }],
    });
    const result = await loadToolpackManifest({ directory: 'lenient', configPath });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const directory = await realpath(path.join(workspace, 'lenient'));
    expect(result.value.runnerModule).toBe(path.join(directory, 'runner.mjs'));
    expect(result.value.tools).toEqual([{ ...tool('lenient.run'), validate: expect.any(Function) }]);
    expect(result.value.webui).toEqual([{ id: 'lenient.panel', title: 'Panel', kind: 'panel' }]);
  });

  it('follows symlinks: inside the directory is fine, a linked folder leading out is not', async () => {
    await writeToolpack('linked/pack', {
      id: 'linked',
      controller: 'impl/controller.mjs',
      tools: [],
      webui: [{ id: 'x.panel', title: 'Panel' }],
    });
    await mkdir(path.join(workspace, 'linked/real-impl'));
    await writeFile(path.join(workspace, 'linked/real-impl/controller.mjs'), 'export default () => ({});\n');
    await symlink(path.join(workspace, 'linked/real-impl'), path.join(workspace, 'linked/pack/impl'));
    const escaped = await loadToolpackManifest({ directory: 'linked/pack', configPath });
    expect(escaped.ok ? [] : escaped.error.map((problem) => [problem.rule, problem.pointer])).toEqual([
      ['path-symlink-escape', '/controller'],
    ]);

    await symlink(path.join(workspace, 'linked/pack'), path.join(workspace, 'linked/alias'));
    await writeFile(
      path.join(workspace, 'linked/pack', MANIFEST_FILE),
      JSON.stringify({ id: 'linked', tools: [], webui: [{ id: 'x.panel', title: 'Panel' }] }),
    );
    const aliased = await loadToolpackManifest({ directory: 'linked/alias', configPath });
    expect(aliased.ok && aliased.value.directory).toBe(await realpath(path.join(workspace, 'linked/pack')));
  });

  it('refuses "." and ".." as toolpack and WebUI ids, naming the rule', async () => {
    for (const id of ['.', '..']) {
      await writeToolpack(`dots-${id.length}`, { id, tools: [], webui: [{ id: 'x.panel', title: 'Panel' }] });
      const result = await loadToolpackManifest({ directory: `dots-${id.length}`, configPath });
      expect(result.ok ? [] : result.error).toEqual([
        {
          file: path.join(workspace, `dots-${id.length}`, MANIFEST_FILE),
          rule: 'id-dot-segment',
          message: `toolpack id "${id}" is a path segment ("." or ".."), which names a directory, not a toolpack`,
          pointer: '/id',
        },
      ]);
      await writeToolpack(`dots-webui-${id.length}`, {
        id: 'dots',
        tools: [],
        webui: [{ id, title: 'Up', kind: 'panel' }],
      });
      const entry = await loadToolpackManifest({ directory: `dots-webui-${id.length}`, configPath });
      expect(entry.ok ? [] : entry.error.map((problem) => [problem.rule, problem.message])).toEqual([
        ['webui-id-invalid', expect.stringContaining(`WebUI entry id "${id}" is a path segment`)],
      ]);
    }
    // Dots inside an id are still fine.
    await writeToolpack('dotted', { id: 'a..b', tools: [], webui: [{ id: 'x.panel', title: 'Panel' }] });
    expect((await loadToolpackManifest({ directory: 'dotted', configPath })).ok).toBe(true);
  });

  it('refuses a manifest over 1 MiB without reading it, and a manifest linked from outside', async () => {
    const large = await loadToolpackManifest({
      directory: 'bad-toolpacks/manifest-too-large',
      configPath,
    });
    expect(large.ok ? '' : large.error[0]?.message).toMatch(
      /^suzumio\.toolpack\.json is \d+ bytes; a manifest may have at most 1048576 bytes \(1 MiB\), so it is not read$/,
    );
    const linked = await loadToolpackManifest({
      directory: 'bad-toolpacks/manifest-symlink-escape',
      configPath,
    });
    expect(linked.ok ? '' : linked.error[0]?.message).toBe(
      `${MANIFEST_FILE} is a symlink to ${await realpath(path.join(workspace, 'outside', MANIFEST_FILE))}, outside the toolpack directory; the manifest must live in the toolpack`,
    );
    // A manifest linked from inside the directory is read.
    await writeToolpack('inner-link', {
      id: 'inner-link',
      tools: [],
      webui: [{ id: 'x.panel', title: 'Panel' }],
    });
    await rename(
      path.join(workspace, 'inner-link', MANIFEST_FILE),
      path.join(workspace, 'inner-link', 'manifest.real.json'),
    );
    await symlink('manifest.real.json', path.join(workspace, 'inner-link', MANIFEST_FILE));
    expect((await loadToolpackManifest({ directory: 'inner-link', configPath })).ok).toBe(true);
  });

  it('reports every rule broken after the schema passes, each with its pointer', async () => {
    await writeToolpack('several', {
      id: 'several',
      runner: 'runner.js',
      tools: [tool('several.a'), tool('several.a'), { ...tool('several.b'), inputSchema: { type: 'array' } }],
    });
    const result = await loadToolpackManifest({ directory: 'several', configuredId: 'other', configPath });
    expect(result.ok ? [] : result.error.map((problem) => [problem.rule, problem.pointer])).toEqual([
      ['id-mismatch', '/id'],
      ['module-extension', '/runner'],
      ['tool-duplicate-in-manifest', '/tools/1/name'],
      ['input-schema-invalid', '/tools/2/inputSchema'],
    ]);
  });
});

describe('loading the registered toolpacks', () => {
  it('refuses repeated ids and tool names (built-ins included), keeping the first, and loads the rest', async () => {
    await writeToolpack('dup/review-copy', { id: 'review-copy', tools: [tool('review.summarize')] });
    await writeToolpack('dup/review-again', { id: 'review-tools', tools: [tool('again.unique')] });
    await writeToolpack('dup/shadow', { id: 'shadow', tools: [tool('shadow.ok'), tool('sessions_spawn')] });
    await writeToolpack('dup/core', { id: 'core', tools: [], webui: [{ id: 'x.panel', title: 'Panel' }] });
    // Refused toolpacks claim nothing: `again.unique` is free for this one.
    await writeToolpack('dup/fine', { id: 'fine', tools: [tool('again.unique'), tool('shadow.ok')] });
    const entries = [
      'core',
      { path: path.relative(workspace, reviewTools), id: 'review-tools' },
      { path: 'dup/review-copy', id: 'review-copy' },
      { path: 'dup/review-again', id: 'review-tools' },
      { path: 'dup/shadow', id: 'shadow' },
      { path: 'dup/core', id: 'core' },
      'web',
      'core',
      { path: 'dup/fine', id: 'fine' },
    ] as const;
    const loaded = await loadToolpacks({
      entries: [...entries],
      configPath,
      builtinToolNames: ['sessions_spawn'],
    });

    expect(loaded.builtins).toEqual(['core', 'web']);
    expect(loaded.toolpacks.map((toolpack) => toolpack.id)).toEqual(['review-tools', 'fine']);
    const manifest = (relative: string) => path.join(workspace, relative, MANIFEST_FILE);
    expect(loaded.problems.map(({ file, rule, pointer }) => ({ file, rule, pointer }))).toEqual([
      { file: manifest('dup/review-copy'), rule: 'tool-duplicate', pointer: '/tools/0/name' },
      { file: manifest('dup/review-again'), rule: 'toolpack-duplicate-id', pointer: '/id' },
      { file: manifest('dup/shadow'), rule: 'tool-duplicate', pointer: '/tools/1/name' },
      { file: manifest('dup/core'), rule: 'toolpack-duplicate-id', pointer: '/id' },
      { file: configPath, rule: 'toolpack-duplicate-id', pointer: '/tools/toolpacks/7' },
    ]);
    const [copy, again, shadow, core, builtin] = loaded.problems.map((problem) => problem.message);
    expect(copy).toContain('"review.summarize" is already defined by toolpack "review-tools"');
    expect(copy).toContain(path.join(reviewTools, MANIFEST_FILE));
    expect(again).toContain('"review-tools" is already taken by toolpack "review-tools"');
    expect(shadow).toContain('"sessions_spawn" is already defined by the gateway');
    expect(core).toContain('already taken by the built-in toolpack "core"');
    expect(builtin).toContain('"core" is registered again');
  });

  it('loads nothing and reports nothing for an empty list', async () => {
    expect(await loadToolpacks({ entries: [], configPath, builtinToolNames: ['a.b'] })).toEqual({
      toolpacks: [],
      builtins: [],
      problems: [],
    });
  });
});

describe('tools.toolpacks in the config', () => {
  it('defaults to none and accepts built-in names and { path, id } entries', () => {
    const empty = validateConfig({});
    expect(empty.ok && empty.value.tools.toolpacks).toEqual([]);
    const toolpacks = ['core', 'file', 'shell', 'web', { path: './toolpacks/review', id: 'review-tools' }];
    const result = validateConfig({ tools: { toolpacks } });
    expect(result.ok && result.value.tools.toolpacks).toEqual(toolpacks);
  });

  it('rejects unknown built-in names, bad ids and incomplete entries with JSON pointers', () => {
    const cases: Array<[unknown, string]> = [
      ['cor', '/tools/toolpacks/0'],
      [{ path: './x', id: 'bad id' }, '/tools/toolpacks/0/id'],
      [{ path: './x', id: '..' }, '/tools/toolpacks/0/id'],
      [{ path: './x', id: '.' }, '/tools/toolpacks/0/id'],
      [{ path: './x' }, '/tools/toolpacks/0/id'],
      [{ path: '', id: 'x' }, '/tools/toolpacks/0/path'],
      [{ path: './x', id: 'x', extra: true }, '/tools/toolpacks/0/extra'],
    ];
    for (const [entry, pointer] of cases) {
      const result = validateConfig({ tools: { toolpacks: [entry] } });
      expect(result.ok).toBe(false);
      expect(result.ok ? [] : result.error.map((issue) => issue.path)).toContain(pointer);
    }
    const unknownKey = validateConfig({ tools: { toolpacks: [], packs: [] } });
    expect(unknownKey.ok ? [] : unknownKey.error).toEqual([{ path: '/tools/packs', message: 'unknown key' }]);
  });
});
