import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Issue 33 item 8: no user-facing message says `<stateDir>`, `<pid>` or the like where the program
 * knows the value (the CLI prints the state dir's real path and the pid it finds). Every string
 * and template literal in src/ is scanned for a placeholder of such a value. Allowed: a command's
 * option syntax (`--pid <pid>`, commander's), and the config schema's descriptions, which
 * describe every config at once (`default <stateDir>/workspaces/<agentId>`).
 */

const SRC = path.resolve(import.meta.dirname, '../../src');
const KNOWN_VALUES = /<(stateDir|pid|port|host|configPath|config|workdir|token|tokenFile)>/;
const OPTION_SYNTAX = /--[a-z-]+ <\w+>/g;
const ALLOWED_FOLDER = path.join(SRC, 'base', 'config', 'schema');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return full === ALLOWED_FOLDER ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** `file:line: text` of each string or template piece holding a placeholder of a known value. */
function findPlaceholders(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      const value = node.text.replace(OPTION_SYNTAX, '');
      if (KNOWN_VALUES.test(value)) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart());
        found.push(`${path.relative(SRC, file)}:${line + 1}: ${value.slice(0, 120)}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('placeholders in messages', () => {
  it('finds one: a planted `<stateDir>` and `<pid>` are caught, an option and a comment are not', () => {
    const planted = [
      "const a = 'token from <stateDir>/http-token';",
      'const b = `kill -USR1 <pid> now ${1}`;',
      "const c = '--pid <pid> names it';",
      '// a comment about <stateDir> is not a message',
    ].join('\n');
    expect(findPlaceholders(path.join(SRC, 'planted.ts'), planted)).toEqual([
      'planted.ts:1: token from <stateDir>/http-token',
      'planted.ts:2: kill -USR1 <pid> now ',
    ]);
  });

  it('src/ has none: each message names the real value', () => {
    const found = sourceFiles(SRC).flatMap((file) => findPlaceholders(file, readFileSync(file, 'utf8')));
    expect(found).toEqual([]);
  });
});
