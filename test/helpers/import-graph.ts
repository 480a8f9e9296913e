import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The import graph of `src/`, read from the text of its files: the layer test, the cycle test and
 * `scripts/house-measures.ts` all measure the same graph. Paths are relative to the project root
 * (`src/surfaces/channels/slack/hear.ts`).
 */
export interface SourceFile {
  file: string;
  text: string;
}

/** The tier folders of `src/`: a folder under one of these is a concept (`surfaces/channels`). */
export const TIERS = ['surfaces', 'engine', 'extensions', 'records', 'base'] as const;

const RELATIVE_IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;

/** Every `.ts`/`.mjs` file under `directory` (relative to `root`), with its text. */
export function readSources(root: string, directory = 'src'): SourceFile[] {
  return readdirSync(path.join(root, directory), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|mjs)$/.test(entry.name))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
    .sort()
    .map((file) => ({ file, text: readFileSync(path.join(root, file), 'utf8') }));
}

/** The relative specifiers a file imports or re-exports (`import type` included: a type is a dependency too). */
export function relativeImports(text: string): string[] {
  return [...text.matchAll(RELATIVE_IMPORT)].map((match) => match[1] ?? '');
}

/** `src/x/y.ts` importing `../z/index.js` → `src/z/index.js` (the specifier resolved, `.js` kept). */
export function resolveImport(file: string, specifier: string): string {
  return path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
}

/**
 * The concept a file belongs to: `src/surfaces/channels/slack/hear.ts` → `surfaces/channels`,
 * `src/cli/start.ts` → `cli`, `src/main.ts` → `main.ts`.
 */
export function conceptOf(file: string): string {
  const parts = file.split('/');
  const first = parts[1] ?? '';
  if ((TIERS as readonly string[]).includes(first) && parts.length > 3) return `${first}/${parts[2]}`;
  return first;
}

/** A concept's short name, the one the layer table's "may import" column uses: `surfaces/channels` → `channels`. */
export function conceptName(concept: string): string {
  return concept.split('/').at(-1) ?? concept;
}

/** File → the files it imports (resolved to `.ts`/`.mjs` paths that exist among `files`). */
export function importGraph(files: SourceFile[]): Map<string, string[]> {
  const known = new Set(files.map((entry) => entry.file));
  const graph = new Map<string, string[]>();
  for (const { file, text } of files) {
    const targets = relativeImports(text)
      .map((specifier) => resolveImport(file, specifier))
      .flatMap((target) => [target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.mjs'), target])
      .filter((target) => known.has(target));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The strongly connected parts of more than one file (or a file importing itself): each is a cycle. */
export function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node) ?? 0, index.get(target) ?? 0));
    }
    if (low.get(node) !== index.get(node)) return;
    const part: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      part.push(member);
    } while (member !== node);
    if (part.length > 1 || graph.get(node)?.includes(node)) found.push(part.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found.sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? ''));
}
