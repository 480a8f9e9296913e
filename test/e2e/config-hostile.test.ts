import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { killRunningChildren, runCli } from '../helpers/process.js';

// A config file no one should write, given to the built CLI as an operator would: `doctor` and
// `start` name the file, the JSON pointer and what is wrong, and print no stack trace.

const DEPTH = 100_000;
let dir: string;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-config-hostile-');
});

afterEach(async () => {
  await killRunningChildren();
});

afterAll(async () => {
  await killRunningChildren();
  await removeDir(dir);
});

/** Writes `text` as a config file (with a state dir of its own) and runs `command` on it. */
async function run(command: 'doctor' | 'start', name: string, body: string) {
  const file = path.join(dir, `${name}.jsonc`);
  const stateDir = JSON.stringify(path.join(dir, `${name}-state`));
  await writeFile(file, `{ "stateDir": ${stateDir}, "http": { "port": 0 }, ${body} }\n`);
  const result = await runCli([command, '--config', file], { timeoutMs: 30_000 });
  return { ...result, file, output: `${result.stdout}\n${result.stderr}` };
}

const CASES: Array<[string, string, string]> = [
  [
    'deep',
    `"agents": { "main": { "displayName": ${'['.repeat(DEPTH)}${']'.repeat(DEPTH)} } }`,
    '/agents/main/displayName/0/0/',
  ],
  [
    'proto',
    '"agents": { "__proto__": { "displayName": "x" } }',
    '/agents/__proto__: the key "__proto__" is not allowed',
  ],
  [
    'huge',
    '"agentLoop": { "maxRounds": 1e309 }',
    '/agentLoop/maxRounds: the number is not finite (Infinity)',
  ],
];

describe('a hostile config file', () => {
  it.each(CASES)(
    '%s: doctor names the file and the path, without a stack trace',
    async (name, body, expected) => {
      const result = await run('doctor', name, body);
      expect(result.code).toBe(1);
      expect(result.output).toContain(result.file);
      expect(result.output).toContain(expected);
      expect(result.output).not.toMatch(/RangeError|Maximum call stack|\n\s+at /);
    },
  );

  it('start refuses the deep one naming the file, the path and the limit', async () => {
    const result = await run('start', 'deep-start', CASES[0]?.[1] ?? '');
    expect(result.code).not.toBe(0);
    expect(result.output).toContain(result.file);
    expect(result.output).toContain('nested deeper than 64 levels (objects and arrays) at line 1');
    expect(result.output).not.toMatch(/RangeError|Maximum call stack/);
  });
});
