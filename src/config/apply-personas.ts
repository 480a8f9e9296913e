import path from 'node:path';
import type { ConfigIssue } from '../errors/index.js';
import { describeProblem, readPersonaFile, shownPath } from '../personas/index.js';

/**
 * Fills each `agents.<id>` that names a `persona` file with the persona's fields, before the
 * schema's defaults: the entry's own fields win over the persona's (`name` becomes `displayName`,
 * the Markdown body `systemPrompt` unless the entry has `systemPrompt` or `systemPromptFile`).
 * A persona that cannot be read or parsed is an issue at `/agents/<id>/persona` naming its file,
 * line and field. Files are relative to the config file (without one, to the working directory).
 */
export function applyPersonas(
  value: unknown,
  configFile: string | undefined,
): { value: unknown; issues: ConfigIssue[] } {
  const agents = (value as { agents?: unknown } | null)?.agents;
  if (agents === null || typeof agents !== 'object' || Array.isArray(agents)) return { value, issues: [] };
  const baseDir = configFile ? path.dirname(configFile) : process.cwd();
  const issues: ConfigIssue[] = [];
  const merged: Record<string, unknown> = {};
  for (const [id, entry] of Object.entries(agents as Record<string, unknown>)) {
    const persona = (entry as { persona?: unknown } | null)?.persona;
    merged[id] = entry;
    if (typeof persona !== 'string' || persona === '') continue; // The schema reports a wrong type.
    const file = path.resolve(baseDir, persona);
    const read = readPersonaFile(file, shownPath(file, baseDir));
    const at = `/agents/${id}/persona`;
    if (!read.ok) {
      issues.push(...read.problems.map((problem) => ({ path: at, message: describeProblem(problem) })));
      continue;
    }
    if (read.value.id !== undefined && read.value.id !== id) {
      const message = `${shownPath(file, baseDir)}:${read.value.idLine}: id: is "${read.value.id}" but the persona is used by agent "${id}"`;
      issues.push({ path: at, message });
      continue;
    }
    const own = entry as Record<string, unknown>;
    const fromPersona = { ...read.value.agent };
    if (own.systemPrompt !== undefined || own.systemPromptFile !== undefined) delete fromPersona.systemPrompt;
    merged[id] = { ...fromPersona, ...own };
  }
  return { value: { ...(value as object), agents: merged }, issues };
}
