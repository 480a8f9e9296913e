import type { RiskClass } from '../../engine/tools/index.js';
import type { LoadedTool } from './types.js';

/**
 * A toolpack tool's risk classes: its manifest's `risk`, else a conservative default. Its code
 * runs in a runner process that may read and write its workspace, so `read` and `write`; a tool
 * the manifest marks `risky` is taken to run commands too (`exec`, which asks by default).
 */
export function toolpackRisk(tool: Pick<LoadedTool, 'risk' | 'risky'>): readonly RiskClass[] {
  if (tool.risk !== undefined) return tool.risk;
  return tool.risky === true ? ['read', 'write', 'exec'] : ['read', 'write'];
}
