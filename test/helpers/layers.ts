import path from 'node:path';

/** For each folder under `src/` (and `main.ts`), the folders it may import. */
export type LayerRules = Map<string, Set<string>>;

/** Reads the table between `<!-- layers:start -->` and `<!-- layers:end -->`: folder | owns | may import. */
export function parseLayerTable(markdown: string): LayerRules {
  const table = markdown.split('<!-- layers:start -->')[1]?.split('<!-- layers:end -->')[0];
  if (table === undefined)
    throw new Error('docs/architecture.md: no <!-- layers:start --> … <!-- layers:end --> table');
  const rules: LayerRules = new Map();
  for (const line of table.split('\n').slice(3)) {
    const cells = line.split('|').map((cell) => cell.trim());
    const folder = cells[1];
    if (!folder) continue;
    const allowed = (cells[3] ?? '').split(',').map((name) => name.trim());
    rules.set(folder, new Set(allowed.filter(Boolean)));
  }
  return rules;
}

const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;

/** Every relative import in `files` that the rules forbid, as a readable line. */
export function violations(files: { file: string; text: string }[], rules: LayerRules): string[] {
  const found: string[] = [];
  for (const { file, text } of files) {
    const from = topFolder(file);
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? '';
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
      const to = topFolder(target);
      if (to === from) continue;
      const problem = !rules.get(from)?.has(to)
        ? `${from} may not import ${to}`
        : target !== `src/${to}/index.js` && to !== 'main.ts'
          ? "another folder's files are reached through its index.js"
          : undefined;
      if (problem) found.push(`${file} imports ${specifier}: ${problem}`);
    }
  }
  return found;
}

/** `src/routing/commands/x.ts` → `routing`; `src/main.ts` → `main.ts`. */
function topFolder(file: string): string {
  const parts = file.split('/');
  return parts.length === 2 ? (parts[1] ?? '') : (parts[1] ?? '');
}
