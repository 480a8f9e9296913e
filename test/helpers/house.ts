import path from 'node:path';
import { conceptOf, relativeImports, resolveImport, type SourceFile } from './import-graph.js';

/**
 * The house measures of issue 29, over the text of `src/`: a folder is a directory with an
 * `index.ts` (its public surface), and holds its files and the subfolders that have none.
 */
export interface FolderMeasure {
  folder: string;
  files: number;
  lines: number;
  /** The other concepts (`conceptOf`) its files import. */
  imports: string[];
}

export const HOUSE_LIMITS = {
  /** No folder much over this many lines. */
  folderLines: 2_500,
  /** No folder but the composition root imports more than this share of the other concepts. */
  importShare: 0.5,
  /** The composition root may import every concept. */
  exempt: ['app'],
} as const;

/** The folder a file is measured in: the nearest directory above it with an `index.ts`. */
export function folderOf(file: string, indexed: Set<string>): string {
  let directory = path.posix.dirname(file);
  while (directory.includes('/') && !indexed.has(directory)) directory = path.posix.dirname(directory);
  return directory;
}

export function measureFolders(files: SourceFile[]): FolderMeasure[] {
  const indexed = new Set(
    files.filter((entry) => /\/index\.ts$/.test(entry.file)).map((entry) => path.posix.dirname(entry.file)),
  );
  const measures = new Map<string, FolderMeasure & { importSet: Set<string> }>();
  for (const { file, text } of files) {
    const folder = folderOf(file, indexed);
    const measure = measures.get(folder) ?? { folder, files: 0, lines: 0, imports: [], importSet: new Set() };
    measure.files += 1;
    measure.lines += text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    const own = conceptOf(file);
    for (const specifier of relativeImports(text)) {
      const concept = conceptOf(resolveImport(file, specifier));
      if (concept !== own) measure.importSet.add(concept);
    }
    measures.set(folder, measure);
  }
  return [...measures.values()]
    .map(({ importSet, ...measure }) => ({ ...measure, imports: [...importSet].sort() }))
    .sort((a, b) => a.folder.localeCompare(b.folder));
}

/** Every concept of `src/` (`main.ts` included). */
export function concepts(files: SourceFile[]): string[] {
  return [...new Set(files.map((entry) => conceptOf(entry.file)))].sort();
}

/** The measures that break a house rule, as readable lines. */
export function houseProblems(measures: FolderMeasure[], conceptCount: number): string[] {
  const problems: string[] = [];
  const others = conceptCount - 1;
  for (const measure of measures) {
    if (measure.lines > HOUSE_LIMITS.folderLines)
      problems.push(`${measure.folder}: ${measure.lines} lines (limit ${HOUSE_LIMITS.folderLines})`);
    const exempt = (HOUSE_LIMITS.exempt as readonly string[]).includes(conceptOf(`${measure.folder}/x.ts`));
    if (!exempt && measure.imports.length > others * HOUSE_LIMITS.importShare)
      problems.push(`${measure.folder}: imports ${measure.imports.length} of ${others} other folders`);
  }
  return problems;
}
