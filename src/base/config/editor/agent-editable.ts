import { ConfigSchema } from '../schema/schema.js';
import { AGENT_EDITABLE_KEYWORD, type SchemaNode } from '../schema/schema-helpers.js';
import { formatConfigPath } from '../schema/schema-lookup.js';
import { collectDifferences, valueAt } from './edit-text.js';
import { isPlainObject } from './merge-patch.js';

/**
 * What the model-facing `gateway` tool may change: an allow list. A schema node marked
 * `x-agent-editable: true` may be changed by the model, `false` may not; a node without the mark
 * takes the decision of the nearest object above it, and a path with no decision at all (one the
 * schema does not know) is refused. An owner opens more with `agentEditable` (dot paths, `*` for
 * any key); the protected paths of tool-guard.ts (owners, secrets, URLs, …) stay shut either way.
 */

/** One path of the schema as the guard decides it (an array is one value), and its decision. */
export interface AgentEditDecision {
  /** Dot path, `*` for any key of a record. */
  path: string;
  /** undefined: no decision on it or above it. */
  editable: boolean | undefined;
}

function mark(node: SchemaNode): boolean | undefined {
  const value = node[AGENT_EDITABLE_KEYWORD];
  return typeof value === 'boolean' ? value : undefined;
}

/** The children of an object node by key (`*` for a record's any key); none for arrays and scalars. */
function childrenOf(node: SchemaNode): [string, SchemaNode][] {
  const children: [string, SchemaNode][] = Object.entries(node.properties ?? {});
  for (const child of Object.values(node.patternProperties ?? {})) children.push(['*', child]);
  if (typeof node.additionalProperties === 'object') children.push(['*', node.additionalProperties]);
  for (const branch of node.anyOf ?? []) children.push(...childrenOf(branch));
  return children;
}

/** Every leaf of the schema (a scalar, an array or an object without keys) with its decision. */
export function findAgentEditDecisions(schema: unknown = ConfigSchema): AgentEditDecision[] {
  const found = new Map<string, AgentEditDecision>();
  const walk = (node: SchemaNode, at: string[], inherited: boolean | undefined) => {
    const editable = mark(node) ?? inherited;
    const children = childrenOf(node);
    if (children.length === 0) {
      const path = at.join('.');
      const known = found.get(path);
      // A union whose branches disagree is decided by the stricter one.
      found.set(path, { path, editable: known && known.editable !== editable ? false : editable });
      return;
    }
    for (const [key, child] of children) walk(child, [...at, key], editable);
  };
  walk(schema as SchemaNode, [], undefined);
  return [...found.values()];
}

/** The decision for a concrete path (`agents.main.model`), by walking the schema down it. */
function decisionAt(schema: SchemaNode, parts: readonly (string | number)[]): boolean | undefined {
  let nodes = [schema];
  let decision = mark(schema);
  for (const part of parts) {
    const next = nodes.flatMap((node) =>
      childrenOf(node)
        .filter(([key]) => key === String(part) || key === '*')
        .map(([, child]) => child),
    );
    // Deeper than the schema names (inside an array value): the decision above holds; a key the schema does not know has none.
    if (next.length === 0) return nodes.some((node) => node.items) ? decision : undefined;
    const marks = next.map(mark).filter((value) => value !== undefined);
    if (marks.length > 0) decision = marks.every(Boolean);
    nodes = next;
  }
  return decision;
}

/** True when an owner's `agentEditable` pattern names the path or an object above it. */
function openedByOwner(parts: readonly (string | number)[], patterns: readonly string[]): boolean {
  return patterns.some((pattern) => {
    const names = pattern.split('.');
    return (
      names.length <= parts.length &&
      names.every((name, index) => name === '*' || name === String(parts[index]))
    );
  });
}

/** The leaves an added or removed value stands for: each key of an object, the value otherwise. */
function leavesOf(value: unknown, at: (string | number)[]): (string | number)[][] {
  if (value === undefined) return [];
  if (!isPlainObject(value) || Object.keys(value).length === 0) return [at];
  return Object.entries(value).flatMap(([key, child]) => leavesOf(child, [...at, key]));
}

/**
 * The first path the edit from `previous` to `next` (the file's own objects) changes that the
 * model may not: neither marked editable in the schema nor opened by `ownerPaths`.
 */
export function refusedAgentEdit(
  previous: Record<string, unknown>,
  next: Record<string, unknown>,
  ownerPaths: readonly string[],
  schema: unknown = ConfigSchema,
): { path: string; known: boolean } | undefined {
  const differences: Parameters<typeof collectDifferences>[3] = [];
  collectDifferences(previous, next, [], differences);
  for (const difference of differences) {
    const at = [...difference.path];
    const before = valueAt(previous, at);
    const leaves = [...leavesOf(before, at), ...leavesOf(difference.value, at)];
    for (const leaf of leaves) {
      if (openedByOwner(leaf, ownerPaths)) continue;
      const decision = decisionAt(schema as SchemaNode, leaf);
      if (decision !== true) return { path: formatConfigPath(leaf), known: decision !== undefined };
    }
  }
  return undefined;
}

/** How an owner changes what the tool refused: every refusal of the guard ends with it. */
export function ownerWays(file: string): string {
  return `an owner can change it on the Config page, with /config patch or \`switchboard config patch\`, or in the file (${file})`;
}

/** Why the tool refuses `path`, and how an owner changes it or lets the model. */
export function agentEditRefusal(refused: { path: string; known: boolean }, file: string): string {
  const { path } = refused;
  if (!refused.known)
    return `${path} is not a path of the config schema (see config.schema.lookup); nothing was written.`;
  return `${path} cannot be changed through the gateway tool (the config schema does not mark it x-agent-editable and agentEditable does not list it); nothing was written; ${ownerWays(file)}, or let the gateway tool change it by adding "${path}" (or a path above it) to agentEditable.`;
}
