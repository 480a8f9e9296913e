import { readdirSync } from 'node:fs';
import path from 'node:path';
import { type ConfigIssue, errorText } from '../errors/index.js';
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
  const baseDir = configFile ? path.dirname(configFile) : process.cwd();
  const issues: ConfigIssue[] = [];
  const agents = withPersonaFolder(value, baseDir, issues);
  if (agents === null || typeof agents !== 'object' || Array.isArray(agents)) return { value, issues };
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

/**
 * `personas`: a folder whose `*.md` files each name their agent by `id`. Each becomes
 * `agents.<id>.persona` (an entry of that id keeps its own fields, which win); without `agents` in
 * the file, they join the default agent `main`. A file without an `id`, or with the id of
 * another file, is an issue at `/personas` naming the file.
 */
function withPersonaFolder(value: unknown, baseDir: string, issues: ConfigIssue[]): unknown {
  const config = value as { agents?: unknown; personas?: unknown } | null;
  const folder = config?.personas;
  if (typeof folder !== 'string' || folder === '') return config?.agents;
  const directory = path.resolve(baseDir, folder);
  let names: string[];
  try {
    names = readdirSync(directory)
      .filter((name) => name.endsWith('.md'))
      .sort();
  } catch (error) {
    issues.push({
      path: '/personas',
      message: `cannot read the folder ${shownPath(directory, baseDir)}: ${errorText(error)}`,
    });
    return config?.agents;
  }
  const agents: Record<string, unknown> = {
    ...((config?.agents as Record<string, unknown> | undefined) ?? { main: {} }),
  };
  const seen = new Map<string, string>();
  for (const name of names) {
    const file = path.join(directory, name);
    const shown = shownPath(file, baseDir);
    const read = readPersonaFile(file, shown);
    if (!read.ok) {
      issues.push(
        ...read.problems.map((problem) => ({ path: '/personas', message: describeProblem(problem) })),
      );
      continue;
    }
    const id = read.value.id;
    if (id === undefined || seen.has(id)) {
      const why =
        id === undefined ? 'is required in a personas folder' : `"${id}" is also the id of ${seen.get(id)}`;
      issues.push({ path: '/personas', message: `${shown}:${read.value.idLine}: id: ${why}` });
      continue;
    }
    seen.set(id, shown);
    const entry = (agents[id] as Record<string, unknown> | undefined) ?? {};
    agents[id] = { persona: path.relative(baseDir, file), ...entry };
  }
  return agents;
}
