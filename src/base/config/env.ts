import type { ConfigIssue } from '../errors/index.js';

const REFERENCE = /\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Replaces `${NAME}` in every string of a parsed config with the environment variable.
 * `$${NAME}` is an escape for a literal `${NAME}`. A variable that is not set is an issue
 * at the JSON pointer of the string that names it; nothing is replaced by an empty string.
 */
export function substituteEnv(
  value: unknown,
  environment: NodeJS.ProcessEnv,
): { value: unknown; issues: ConfigIssue[]; missing: string[] } {
  const issues: ConfigIssue[] = [];
  const missing = new Set<string>();
  const walk = (node: unknown, path: string): unknown => {
    if (typeof node === 'string') {
      return node.replace(REFERENCE, (whole, escaped: string, name: string) => {
        if (escaped) return whole.slice(1);
        const replacement = environment[name];
        if (replacement === undefined) {
          issues.push({ path, message: `environment variable ${name} is not set` });
          missing.add(name);
          return whole;
        }
        return replacement;
      });
    }
    if (Array.isArray(node)) return node.map((item, index) => walk(item, `${path}/${index}`));
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(
        Object.entries(node).map(([key, item]) => [key, walk(item, `${path}/${escapePointer(key)}`)]),
      );
    }
    return node;
  };
  const substituted = walk(value, '');
  return { value: substituted, issues, missing: [...missing] };
}

export function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}
