import { isDeepStrictEqual } from 'node:util';
import { applyEdits, type FormattingOptions, type JSONPath, modify } from 'jsonc-parser';
import { fail, ok, type Result, SwitchboardError } from '../../errors/index.js';
import { escapePointer } from '../env.js';
import { parseJsonc } from '../load.js';
import { REDACTED, type SecretPath } from '../redact.js';
import { formatConfigPath } from '../schema/schema-lookup.js';
import { isPlainObject } from './merge-patch.js';

/**
 * Edits at the level of values: the new file text for a new config object, the paths that differ,
 * and the placeholder check made on them (the gateway tool's checks are in tool-guard.ts).
 */

export interface ConfigTextEdit {
  /** The new file text: the old one with only the changed values rewritten, comments kept. */
  text: string;
  /**
   * Dot paths of what changed, one per edit: the deepest object key whose value was added,
   * changed or removed (`agents.main.displayName`, `models.local`). Arrays that differ are
   * replaced whole, so their path is the array's (`bindings`, `agents.main.tools`).
   */
  changedPaths: string[];
}

/**
 * Rewrites a JSONC config text so that it parses to `next`, with one jsonc-parser `modify` per
 * difference between the object the text holds and `next`: comments and the formatting of every
 * untouched line stay as they were. Inserted values follow the file's indentation and line ends.
 * Blank text starts from `{}`. The result ends with a line break. Throws ConfigError when `text`
 * is not a JSONC object.
 */
export function editConfigText(text: string, next: Record<string, unknown>): ConfigTextEdit {
  const previous = parseJsonc(text, undefined) as Record<string, unknown>;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const formattingOptions = { ...detectIndentation(text), eol };
  const differences: { path: JSONPath; value: unknown }[] = [];
  collectDifferences(previous, next, [], differences);

  let edited = text.trim() === '' ? '{}' : text;
  for (const difference of differences) {
    edited = applyEdits(edited, modify(edited, difference.path, difference.value, { formattingOptions }));
  }
  if (!edited.endsWith('\n')) edited += eol;
  // jsonc-parser edits text, not values: check that the text means what was asked, so that a
  // surprise in its edits is a loud bug rather than a config that differs from the validated one.
  const reparsed = parseJsonc(edited, undefined);
  if (!isDeepStrictEqual(reparsed, next)) {
    const paths = differences.map((difference) => formatConfigPath(difference.path)).join(', ');
    throw new SwitchboardError(
      'CONFIG_EDIT_MISMATCH',
      `the edited text does not hold the requested config (duplicate keys?; paths: ${paths})`,
    );
  }
  return { text: edited, changedPaths: differences.map((difference) => formatConfigPath(difference.path)) };
}

/**
 * The differences between two config objects as the leaf edits that turn one into the other:
 * keys are compared recursively through objects; anything else (arrays, scalars, a change of
 * type) that differs is one edit of the whole value; `value: undefined` removes the key.
 */
export function collectDifferences(
  previous: Record<string, unknown>,
  next: Record<string, unknown>,
  at: string[],
  into: { path: JSONPath; value: unknown }[],
): void {
  for (const [key, value] of Object.entries(next)) {
    const before = Object.hasOwn(previous, key) ? previous[key] : undefined;
    if (isPlainObject(before) && isPlainObject(value)) {
      collectDifferences(before, value, [...at, key], into);
    } else if (before === undefined || !isDeepStrictEqual(before, value)) {
      into.push({ path: [...at, key], value });
    }
  }
  for (const key of Object.keys(previous)) {
    if (!Object.hasOwn(next, key)) into.push({ path: [...at, key], value: undefined });
  }
}

/**
 * The file's indentation step: tabs when its first indented key is, else the smallest indentation of
 * a line that starts with a key (comment lines such as ` * note` do not count); 2 spaces without one.
 */
export function detectIndentation(text: string): Pick<FormattingOptions, 'tabSize' | 'insertSpaces'> {
  const indents = [...text.matchAll(/^([ \t]+)"/gm)].map((match) => match[1] ?? '');
  if (indents[0]?.startsWith('\t')) return { tabSize: 1, insertSpaces: false };
  const smallest = Math.min(...indents.map((indent) => indent.length));
  return { tabSize: smallest >= 1 && smallest <= 8 ? smallest : 2, insertSpaces: true };
}

/**
 * Puts secrets back where the new object holds the REDACTED placeholder that `config.get` showed:
 * at a secret path, the value at the same path in the file's object is restored as written (a
 * `${ENV}` reference stays a reference). A placeholder anywhere else, or with nothing to restore,
 * is an error naming its JSON pointer. The input is not modified.
 */
export function restorePlaceholders(
  next: Record<string, unknown>,
  previous: Record<string, unknown>,
  secretPaths: SecretPath[],
): Result<Record<string, unknown>> {
  const leftovers: string[] = [];
  const walk = (node: unknown, at: (string | number)[]): unknown => {
    if (node === REDACTED) {
      const original = valueAt(previous, at);
      const isSecret = secretPaths.some((secret) => matchesSecretPath(secret, at));
      if (isSecret && typeof original === 'string') return original;
      leftovers.push(`/${at.map((part) => escapePointer(String(part))).join('/')}`);
      return node;
    }
    if (Array.isArray(node)) return node.map((item, index) => walk(item, [...at, index]));
    if (isPlainObject(node)) {
      const copy: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(node)) {
        Object.defineProperty(copy, key, {
          value: walk(value, [...at, key]),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return copy;
    }
    return node;
  };
  const value = walk(next, []) as Record<string, unknown>;
  if (leftovers.length === 0) return ok(value);
  const message = 'the secret placeholder has no value to restore; give the real value or remove the key';
  return fail(leftovers.map((pointer) => `${pointer}: ${message}`).join('\n'));
}

function matchesSecretPath(secret: SecretPath, at: readonly (string | number)[]): boolean {
  return (
    secret.length === at.length && secret.every((part, index) => part === '*' || part === String(at[index]))
  );
}

/** The value at a path of keys and indexes, own properties only; undefined when absent. */
export function valueAt(root: unknown, at: readonly (string | number)[]): unknown {
  let node = root;
  for (const part of at) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, part)) return undefined;
    node = (node as Record<string | number, unknown>)[part];
  }
  return node;
}
