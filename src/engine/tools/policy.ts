import type { Principal } from '../../base/access/index.js';

/**
 * Agent allowlists (`agents.<id>.tools`): an exact name, `namespace.*` (every tool whose name
 * starts with `namespace.`) or `*`. A tool outside the list is neither shown nor runnable.
 */
export function createAllowlist(patterns: readonly string[]): (toolName: string) => boolean {
  if (patterns.includes('*')) return () => true;
  const exact = new Set(patterns.filter((pattern) => !pattern.endsWith('.*')));
  const prefixes = patterns
    .filter((pattern) => pattern.endsWith('.*'))
    .map((pattern) => pattern.slice(0, -1));
  return (toolName) => exact.has(toolName) || prefixes.some((prefix) => toolName.startsWith(prefix));
}

export const OWNER_ONLY_REFUSAL = 'Tool restricted to owner senders.';

export interface ToolPolicy {
  /** The agent's allowlist. */
  allows(toolName: string): boolean;
  isOwner: boolean;
  /**
   * Who the turn runs as (docs/roles.md): its role decides which tools are offered and run, by
   * `can`, instead of `isOwner` and the tools' `ownerOnly`. Absent (risk summaries, tests): `isOwner`.
   */
  principal?: Principal;
}
