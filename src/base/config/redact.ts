import { ConfigSchema } from './schema/schema.js';
import { SECRET_KEYWORD } from './schema/schema-helpers.js';

/** What every secret value is replaced with in any output. */
export const REDACTED = '__SWITCHBOARD_REDACTED__';

/** A path to secret values; `*` stands for any key or array index. */
export type SecretPath = readonly string[];

interface SchemaNode {
  [SECRET_KEYWORD]?: boolean;
  properties?: Record<string, SchemaNode>;
  patternProperties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  allOf?: SchemaNode[];
}

/** Every path in the schema whose value is marked secret, at any depth. */
export function findSecretPaths(schema: unknown = ConfigSchema): SecretPath[] {
  const found: SecretPath[] = [];
  const walk = (node: SchemaNode, at: string[]) => {
    if (node[SECRET_KEYWORD] === true) found.push(at);
    for (const [key, child] of Object.entries(node.properties ?? {})) walk(child, [...at, key]);
    for (const child of Object.values(node.patternProperties ?? {})) walk(child, [...at, '*']);
    if (typeof node.additionalProperties === 'object') walk(node.additionalProperties, [...at, '*']);
    if (node.items) walk(node.items, [...at, '*']);
    for (const child of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])])
      walk(child, at);
  };
  walk(schema as SchemaNode, []);
  return found;
}

/** A deep copy of a config value with every secret string replaced by REDACTED. */
export function redactConfig<T>(value: T, secretPaths: SecretPath[] = findSecretPaths()): T {
  const copy = structuredClone(value);
  for (const secretPath of secretPaths) {
    visit(copy, secretPath, (parent, key) => {
      if (typeof parent[key] === 'string') parent[key] = REDACTED;
    });
  }
  return copy;
}

/** The secret strings present in a config, for scrubbing them from logs and other text. */
export function collectSecretValues(value: unknown, secretPaths: SecretPath[] = findSecretPaths()): string[] {
  const values = new Set<string>();
  for (const secretPath of secretPaths) {
    visit(value, secretPath, (parent, key) => {
      const secret = parent[key];
      if (typeof secret === 'string' && secret.length > 0) values.add(secret);
    });
  }
  return [...values];
}

type Container = Record<string | number, unknown>;

function visit(
  node: unknown,
  secretPath: SecretPath,
  onLeaf: (parent: Container, key: string) => void,
): void {
  if (node === null || typeof node !== 'object') return;
  const [head, ...rest] = secretPath;
  if (head === undefined) return;
  const container = node as Container;
  const keys = head === '*' ? Object.keys(container) : Object.hasOwn(container, head) ? [head] : [];
  for (const key of keys) {
    if (rest.length === 0) onLeaf(container, key);
    else visit(container[key], rest, onLeaf);
  }
}

/**
 * A function that replaces every secret value in a text with `[REDACTED]`: the raw value and its
 * JSON-escaped form (log lines are JSON), longest first so that a secret containing another is
 * replaced whole. Values shorter than 4 characters are left alone: they would mangle ordinary text.
 */
export function createSecretScrubber(secrets: readonly string[]): (text: string) => string {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    forms.add(secret);
    forms.add(JSON.stringify(secret).slice(1, -1));
  }
  const patterns = [...forms].sort((a, b) => b.length - a.length);
  return (text) => {
    let scrubbed = text;
    for (const pattern of patterns) scrubbed = scrubbed.replaceAll(pattern, '[REDACTED]');
    return scrubbed;
  };
}
