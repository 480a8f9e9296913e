import { conceptName, conceptOf, relativeImports, resolveImport, type SourceFile } from './import-graph.js';

/** For each concept (by its short name: `channels`), the concepts it may import (short names). */
export interface LayerRules {
  /** Short name → short names it may import. */
  allowed: Map<string, Set<string>>;
  /** Short name → the folder as the table writes it (`surfaces/channels`, `cli`, `main.ts`). */
  folders: Map<string, string>;
}

/** Reads the table between `<!-- layers:start -->` and `<!-- layers:end -->`: folder | owns | may import. */
export function parseLayerTable(markdown: string): LayerRules {
  const table = markdown.split('<!-- layers:start -->')[1]?.split('<!-- layers:end -->')[0];
  if (table === undefined)
    throw new Error('docs/architecture.md: no <!-- layers:start --> … <!-- layers:end --> table');
  const rules: LayerRules = { allowed: new Map(), folders: new Map() };
  for (const line of table.split('\n').slice(3)) {
    const cells = line.split('|').map((cell) => cell.trim());
    const folder = cells[1];
    if (!folder) continue;
    const allowed = (cells[3] ?? '').split(',').map((name) => name.trim());
    rules.allowed.set(conceptName(folder), new Set(allowed.filter(Boolean)));
    rules.folders.set(conceptName(folder), folder);
  }
  return rules;
}

/** Every relative import in `files` that the rules forbid, as a readable line. */
export function violations(files: SourceFile[], rules: LayerRules): string[] {
  const found: string[] = [];
  for (const { file, text } of files) {
    const from = conceptName(conceptOf(file));
    for (const specifier of relativeImports(text)) {
      const target = resolveImport(file, specifier);
      const to = conceptName(conceptOf(target));
      if (to === from) continue;
      const problem = !rules.allowed.get(from)?.has(to)
        ? `${from} may not import ${to}`
        : target !== `src/${conceptOf(target)}/index.js` && to !== 'main.ts'
          ? "another folder's files are reached through its index.js"
          : undefined;
      if (problem) found.push(`${file} imports ${specifier}: ${problem}`);
    }
  }
  return found;
}
