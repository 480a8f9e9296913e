import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * A function in `src/` longer than this many lines, counting everything between its first and
 * last line (nested functions included), fails this test unless it is named in `LONG_FUNCTIONS`
 * with the reason it reads at once anyway. The limit is a warning sign, not a ruler: a stateful
 * concept is a class with `#fields` (its methods are measured one by one), and files are split by
 * a replaceable role, never to meet a number.
 */
const MAX_FUNCTION_LINES = 120;

/** `file name` → why this long function is kept whole (a table, a parser's one switch). */
const LONG_FUNCTIONS: Record<string, string> = {};
const root = path.resolve(import.meta.dirname, '../..');

function longFunctions(file: string, text: string, limit: number): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      if (last - first + 1 > limit)
        found.push(`${file}:${first + 1} ${nameOf(node)} (${last - first + 1} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function nameOf(node: ts.Node): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name) return named.name.getText();
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)))
    return parent.name.getText();
  return '<anonymous>';
}

describe(`functions in src/ (at most ${MAX_FUNCTION_LINES} lines)`, () => {
  it('are short enough to read at once', () => {
    const files = readdirSync(path.join(root, 'src'), { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile() && /\.(ts|mjs)$/.test(entry.name))
      .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
    const long = files
      .flatMap((file) => longFunctions(file, readFileSync(path.join(root, file), 'utf8'), MAX_FUNCTION_LINES))
      .filter((found) => !(found.replace(/:\d+ /, ' ').replace(/ \(\d+ lines\)$/, '') in LONG_FUNCTIONS));
    expect(long).toEqual([]);
  });

  it('are measured whole, nested functions included', () => {
    const body = Array.from({ length: MAX_FUNCTION_LINES }, (_, line) => `  const v${line} = ${line};`).join(
      '\n',
    );
    const text = `export function outer() {\n  return () => {\n${body}\n  };\n}\n`;
    expect(longFunctions('planted.ts', text, MAX_FUNCTION_LINES)).toEqual([
      `planted.ts:1 outer (${MAX_FUNCTION_LINES + 4} lines)`,
      `planted.ts:2 <anonymous> (${MAX_FUNCTION_LINES + 2} lines)`,
    ]);
  });
});
