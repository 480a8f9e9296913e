import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * No function in `src/` is longer than this many lines, counting everything between its first
 * and last line (nested functions included): a factory whose closures make a module's worth of
 * code is split into modules, so that each function can be read at once.
 */
const MAX_FUNCTION_LINES = 80;
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
    const long = files.flatMap((file) =>
      longFunctions(file, readFileSync(path.join(root, file), 'utf8'), MAX_FUNCTION_LINES),
    );
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
