import path from 'node:path';
import type { Config } from '../../base/config/index.js';
import { MANIFEST_FILE } from './manifest-schema.js';
import type { LoadedToolpack, ToolpackManifestResult, ToolpackProblem } from './types.js';
import { loadToolpackManifest } from './validate-manifest.js';

export type ToolpackEntry = Config['tools']['toolpacks'][number];
export type BuiltinToolpackName = Extract<ToolpackEntry, string>;

export interface LoadToolpacksOptions {
  entries: Config['tools']['toolpacks'];
  /** The config file; local paths are relative to its directory and entry problems name it. */
  configPath: string;
  /** Tools the gateway defines itself; a toolpack tool with one of these names is refused. */
  builtinToolNames: readonly string[];
}

export interface LoadToolpacksResult {
  /** Local toolpacks that passed every rule, in config order. */
  toolpacks: LoadedToolpack[];
  /** Built-in toolpack names, in config order, each once. */
  builtins: BuiltinToolpackName[];
  /** Why each refused toolpack was skipped; empty when everything loaded. */
  problems: ToolpackProblem[];
}

/**
 * Loads every registered toolpack. A bad toolpack is skipped and its problems reported; the others
 * load. Manifests are read in parallel, then ids and tool names are claimed in config order: the
 * gateway's own tool names first, then each entry. A later toolpack that repeats an id or a tool
 * name is refused whole, naming the one that claimed it first, and claims nothing itself.
 */
export async function loadToolpacks(options: LoadToolpacksOptions): Promise<LoadToolpacksResult> {
  const { configPath } = options;
  const results = await Promise.all(
    options.entries.map((entry) =>
      typeof entry === 'string'
        ? undefined
        : loadToolpackManifest({ directory: entry.path, configuredId: entry.id, configPath }),
    ),
  );
  const idOwners = new Map<string, string>();
  const toolOwners = new Map<string, string>(
    options.builtinToolNames.map((name) => [name, 'the gateway (a built-in tool)']),
  );
  const loaded: LoadToolpacksResult = { toolpacks: [], builtins: [], problems: [] };

  options.entries.forEach((entry, index) => {
    if (typeof entry === 'string') {
      const owner = idOwners.get(entry);
      if (owner !== undefined) {
        loaded.problems.push({
          file: configPath,
          rule: 'toolpack-duplicate-id',
          message: `built-in toolpack "${entry}" is registered again; its id is already taken by ${owner}`,
          pointer: `/tools/toolpacks/${index}`,
        });
        return;
      }
      idOwners.set(entry, `the built-in toolpack "${entry}"`);
      loaded.builtins.push(entry);
      return;
    }
    const result = results[index] as ToolpackManifestResult;
    if (!result.ok) {
      loaded.problems.push(...result.error);
      return;
    }
    // Named as the operator wrote the path, like the manifest's own problems.
    const file = path.join(path.resolve(path.dirname(configPath), entry.path), MANIFEST_FILE);
    const conflicts = claimConflicts(result.value, file, idOwners, toolOwners);
    if (conflicts.length > 0) {
      loaded.problems.push(...conflicts);
      return;
    }
    const description = `toolpack "${result.value.id}" (${file})`;
    idOwners.set(result.value.id, description);
    for (const tool of result.value.tools) toolOwners.set(tool.name, description);
    loaded.toolpacks.push(result.value);
  });
  return loaded;
}

function claimConflicts(
  toolpack: LoadedToolpack,
  file: string,
  idOwners: ReadonlyMap<string, string>,
  toolOwners: ReadonlyMap<string, string>,
): ToolpackProblem[] {
  const problems: ToolpackProblem[] = [];
  const idOwner = idOwners.get(toolpack.id);
  if (idOwner !== undefined) {
    problems.push({
      file,
      rule: 'toolpack-duplicate-id',
      message: `toolpack id "${toolpack.id}" is already taken by ${idOwner}; this toolpack is skipped`,
      pointer: '/id',
    });
  }
  toolpack.tools.forEach((tool, index) => {
    const owner = toolOwners.get(tool.name);
    if (owner === undefined) return;
    problems.push({
      file,
      rule: 'tool-duplicate',
      message: `tool "${tool.name}" is already defined by ${owner}; toolpack "${toolpack.id}" is skipped`,
      pointer: `/tools/${index}/name`,
    });
  });
  return problems;
}
