import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * SECURITY.md names, for each promise, the test that proves it: `test/…test.ts` followed by the
 * test's name in quotes ("…" ends a name cut short). Every file named must exist and every name
 * must be a test in that file, so a renamed or deleted test breaks this one (issue 34 item 5).
 */
const root = path.resolve(import.meta.dirname, '../..');

/** Each test file SECURITY.md names, with the test names quoted right after it. */
function namedTests(text: string): { file: string; names: string[] }[] {
  const flat = text.replace(/\s*\n\s*/g, ' ');
  const cited = /`(test\/[^`]+?\.test\.ts)`[,:]?\s*\(?((?:"(?:[^"\\]|\\.)+"(?:\s*(?:;|,|and)\s*)?)*)/g;
  return [...flat.matchAll(cited)].map((match) => ({
    file: match[1] ?? '',
    names: [...(match[2] ?? '').matchAll(/"((?:[^"\\]|\\.)+)"/g)].map(
      (name) => (name[1] ?? '').replaceAll('\\"', '"').split('…')[0]?.trim() ?? '',
    ),
  }));
}

/** Test source says a name as written, with either apostrophe and `\"` for a quote. */
const said = (source: string, name: string) =>
  [name, name.replaceAll("'", '’'), name.replaceAll('’', "'"), name.replaceAll('"', '\\"')].some((form) =>
    source.includes(form),
  );

describe('SECURITY.md', () => {
  const text = readFileSync(path.join(root, 'SECURITY.md'), 'utf8');
  const cited = namedTests(text);

  it('names test files that exist, and tests that exist in them', () => {
    expect(cited.length).toBeGreaterThan(40);
    const missing = cited.flatMap(({ file, names }) => {
      if (!existsSync(path.join(root, file))) return [`${file}: no such file`];
      const source = readFileSync(path.join(root, file), 'utf8');
      return names.filter((name) => !said(source, name)).map((name) => `${file}: no test "${name}"`);
    });
    expect(missing).toEqual([]);
  });

  it('catches a test renamed away and a file that is gone', () => {
    const planted = namedTests(
      'Roles: `test/integration/roles.test.ts` "a test nobody wrote"; `test/unit/gone.test.ts`.',
    );
    expect(planted).toEqual([
      { file: 'test/integration/roles.test.ts', names: ['a test nobody wrote'] },
      { file: 'test/unit/gone.test.ts', names: [] },
    ]);
    const source = readFileSync(path.join(root, 'test/integration/roles.test.ts'), 'utf8');
    expect(said(source, 'a test nobody wrote')).toBe(false);
    expect(existsSync(path.join(root, 'test/unit/gone.test.ts'))).toBe(false);
  });
});
