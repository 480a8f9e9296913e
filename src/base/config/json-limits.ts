import { createScanner } from 'jsonc-parser';
import { escapePointer } from './env.js';

/**
 * How deep objects and arrays may nest in a config (the deepest real one is under 10). Every
 * later step (jsonc-parser, ajv, merge patches, env substitution) recurses, so a deeper text
 * would exhaust the stack; this limit keeps them all far from it.
 */
export const MAX_CONFIG_DEPTH = 64;

/** One reason a JSON value cannot be a config: where (a JSON pointer) and what. */
export interface JsonLimitProblem {
  pointer: string;
  message: string;
}

/**
 * jsonc-parser's `SyntaxKind` token codes: a `const enum` in its types, which `verbatimModuleSyntax`
 * cannot import, so the values it declares are repeated here.
 */
const SyntaxKind = {
  OpenBraceToken: 1,
  CloseBraceToken: 2,
  OpenBracketToken: 3,
  CloseBracketToken: 4,
  CommaToken: 5,
  StringLiteral: 10,
  NumericLiteral: 11,
  EOF: 17,
} as const;

const PROTO_KEY = '__proto__';
const PROTO_MESSAGE = `the key "${PROTO_KEY}" is not allowed (it would set the object's prototype, not a config value)`;
const DEPTH_MESSAGE = `nested deeper than ${MAX_CONFIG_DEPTH} levels (objects and arrays)`;
const notFinite = (value: number) => `the number is not finite (${value}); JSON numbers must be finite`;

/**
 * Checks an already parsed value (a JSON5 edit): no `__proto__` key, every number finite (JSON5
 * allows `Infinity` and `NaN`, and `1e309` is Infinity in any JSON), at most `MAX_CONFIG_DEPTH`
 * levels. Walks without recursion, so any depth is reported, never a stack overflow.
 */
export function findJsonValueProblem(value: unknown): JsonLimitProblem | undefined {
  const pending: Array<{ node: unknown; at: string[]; depth: number }> = [{ node: value, at: [], depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node, at, depth } = next;
    if (typeof node === 'number' && !Number.isFinite(node))
      return { pointer: pointer(at), message: notFinite(node) };
    if (node === null || typeof node !== 'object') continue;
    if (depth + 1 > MAX_CONFIG_DEPTH) return { pointer: pointer(at), message: DEPTH_MESSAGE };
    const entries = Array.isArray(node)
      ? node.map((item, index) => [String(index), item] as const)
      : Object.entries(node);
    for (const [key, child] of entries.reverse()) {
      if (!Array.isArray(node) && key === PROTO_KEY)
        return { pointer: pointer([...at, key]), message: PROTO_MESSAGE };
      pending.push({ node: child, at: [...at, key], depth: depth + 1 });
    }
  }
  return undefined;
}

/**
 * The same checks on JSONC text, before it is parsed (jsonc-parser recurses, and it would set a
 * prototype for `__proto__`). Scans tokens only, so strings and comments holding brackets are
 * read as what they are; syntax errors are left to the parser. Messages end with the position.
 */
export function findJsonTextProblem(text: string): JsonLimitProblem | undefined {
  const scanner = createScanner(text, true);
  const frames: Array<{ array: boolean; slot: string; expectKey: boolean }> = [];
  const at = () => frames.map((frame) => frame.slot);
  const where = () => {
    const before = text.slice(0, scanner.getTokenOffset()).split('\n');
    return ` at line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
  };
  for (let token: number = scanner.scan(); token !== SyntaxKind.EOF; token = scanner.scan()) {
    const top = frames.at(-1);
    switch (token) {
      case SyntaxKind.OpenBraceToken:
      case SyntaxKind.OpenBracketToken: {
        if (frames.length + 1 > MAX_CONFIG_DEPTH)
          return { pointer: pointer(at()), message: DEPTH_MESSAGE + where() };
        const array = token === SyntaxKind.OpenBracketToken;
        frames.push({ array, slot: array ? '0' : '', expectKey: !array });
        break;
      }
      case SyntaxKind.CloseBraceToken:
      case SyntaxKind.CloseBracketToken:
        frames.pop();
        break;
      case SyntaxKind.CommaToken:
        if (top?.array) top.slot = String(Number(top.slot) + 1);
        else if (top) top.expectKey = true;
        break;
      case SyntaxKind.StringLiteral:
        if (top && !top.array && top.expectKey) {
          top.slot = scanner.getTokenValue();
          top.expectKey = false;
          if (top.slot === PROTO_KEY) return { pointer: pointer(at()), message: PROTO_MESSAGE + where() };
        }
        break;
      case SyntaxKind.NumericLiteral: {
        const number = Number(scanner.getTokenValue());
        if (!Number.isFinite(number)) return { pointer: pointer(at()), message: notFinite(number) + where() };
        break;
      }
    }
  }
  return undefined;
}

function pointer(parts: readonly string[]): string {
  return parts.map((part) => `/${escapePointer(part)}`).join('');
}
