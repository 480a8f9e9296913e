import { createAllowlist, type ToolPolicy } from './policy.js';
import { RISK_CLASSES, type RiskClass, type Tool } from './types.js';

/**
 * The classes of a tool that declares none (a tool passed in the gateway options, a test's): it may
 * read and change state, and nothing more is assumed. Toolpack tools get their own default
 * (`toolpackRisk` in src/extensions/toolpacks).
 */
export const UNDECLARED_RISK: readonly RiskClass[] = ['read', 'write'];

/** The classes whose calls ask an approver by default (`approvals.tools` still wins). */
export const ASKING_RISK: readonly RiskClass[] = ['exec', 'control-plane'];

/**
 * A call of this tool may be repeated when a restart cut it short before its result was recorded:
 * the tool says so (`restartSafe`), or it only reads (`readOnly`). Otherwise the resumed turn's
 * model is told the call's outcome is unknown.
 */
export function isRestartSafe(tool: Pick<Tool, 'readOnly' | 'restartSafe'>): boolean {
  return tool.restartSafe ?? tool.readOnly === true;
}

export function riskOf(tool: Pick<Tool, 'risk'>): readonly RiskClass[] {
  return tool.risk ?? UNDECLARED_RISK;
}

/** A call asks by default: the tool is marked `risky`, or one of its classes is `exec` or `control-plane`. */
export function asksByDefault(tool: Pick<Tool, 'risk' | 'risky'>): boolean {
  return tool.risky === true || riskOf(tool).some((risk) => ASKING_RISK.includes(risk));
}

/**
 * What an agent may do: the union of the classes of the tools its allowlist lets it see
 * (`all`), and those of them it only has in owner turns (`ownerOnly`: carried by owner-only tools
 * alone). Computed from the registry, so every registered tool (built-in, toolpack, MCP) counts.
 */
export interface RiskSummary {
  all: RiskClass[];
  ownerOnly: RiskClass[];
  /** Tools the allowlist names that are hidden because a prerequisite is missing (`requires`), with why. */
  unavailable: { name: string; reason: string }[];
}

/** What a risk summary reads of the tool registry (`ToolRegistry` has it). */
export interface RegisteredTools {
  visible(policy: ToolPolicy): Tool[];
  unavailable(): { name: string; reason: string }[];
  revision(): string;
}

export function riskSummary(
  registry: Pick<RegisteredTools, 'visible' | 'unavailable'>,
  allowlist: readonly string[],
): RiskSummary {
  const allows = createAllowlist(allowlist);
  const everyone = new Set(registry.visible({ allows, isOwner: false }).flatMap((tool) => riskOf(tool)));
  const owners = new Set(registry.visible({ allows, isOwner: true }).flatMap((tool) => riskOf(tool)));
  return {
    all: RISK_CLASSES.filter((risk) => owners.has(risk)),
    ownerOnly: RISK_CLASSES.filter((risk) => owners.has(risk) && !everyone.has(risk)),
    unavailable: registry.unavailable().filter((tool) => allows(tool.name)),
  };
}

/** An agent's risk summary by its allowlist. */
export type RiskSummaries = (allowlist: readonly string[]) => RiskSummary;

/**
 * `riskSummary` over `registry`, kept per allowlist until the registry's revision changes. An
 * allowlist is known by identity: the arrays of one loaded config, so a config change (a new
 * config, new arrays) computes afresh. `/status` and `GET /api/status` ask at every call; the
 * summaries are shared, not to be changed by the caller.
 */
export function createRiskSummaries(registry: RegisteredTools): RiskSummaries {
  const kept = new WeakMap<readonly string[], { revision: string; summary: RiskSummary }>();
  return (allowlist) => {
    const revision = registry.revision();
    const hit = kept.get(allowlist);
    if (hit?.revision === revision) return hit.summary;
    const summary = riskSummary(registry, allowlist);
    kept.set(allowlist, { revision, summary });
    return summary;
  };
}

/** `read, write, exec (owner only)`; `none (no tools)` for an agent without tools. */
export function riskSummaryText(summary: RiskSummary): string {
  if (summary.all.length === 0) return 'none (no tools)';
  return summary.all
    .map((risk) => (summary.ownerOnly.includes(risk) ? `${risk} (owner only)` : risk))
    .join(', ');
}

/** `chat.attach (needs …)`, one per tool; empty when every allowed tool is available. */
export function unavailableText(summary: RiskSummary): string {
  return summary.unavailable.map((tool) => `${tool.name} (${tool.reason})`).join('; ');
}

/**
 * Config `tools.risk` over a tool's own classes: an exact name wins over the longest matching
 * `namespace.*`, and that over `*`. No entry: the tool as it is.
 */
export function withRiskOverride(tool: Tool, table: Readonly<Record<string, readonly RiskClass[]>>): Tool {
  const found = lookupPattern(table, tool.name);
  return found === undefined ? tool : { ...tool, risk: found };
}

function lookupPattern<Value>(table: Readonly<Record<string, Value>>, name: string): Value | undefined {
  if (Object.hasOwn(table, name)) return table[name];
  let best: { length: number; value: Value } | undefined;
  for (const [pattern, value] of Object.entries(table)) {
    if (!pattern.endsWith('.*')) continue;
    const prefix = pattern.slice(0, -1);
    if (name.startsWith(prefix) && (!best || prefix.length > best.length))
      best = { length: prefix.length, value };
  }
  return best?.value ?? (Object.hasOwn(table, '*') ? table['*'] : undefined);
}
