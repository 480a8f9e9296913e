import { readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** tsc's incremental record in a build (tsconfig.build.json's `tsBuildInfoFile`). */
export const BUILD_RECORD = '.tsbuildinfo';

/**
 * Moves tsc's incremental record with a build from the checkout `from` to the checkout `to` (each
 * holding `dist/`). The record names files relative to `dist/`: the project's own keep their
 * names, but the packages' (node_modules, typescript's lib) are named by their real path, which
 * from another directory is another relative name. tsc then takes them for new files and compiles
 * everything again; renamed here to the real path the packages have from `to`, it compiles only
 * what changed. Leaves a record it cannot read as it is (tsc then builds all).
 */
export async function relocateBuildRecord(from: string, to: string): Promise<void> {
  const file = path.join(to, 'dist', BUILD_RECORD);
  let record: { fileNames?: string[] };
  try {
    record = JSON.parse(await readFile(file, 'utf8')) as typeof record;
  } catch {
    return;
  }
  if (!Array.isArray(record.fileNames)) return;
  const fromDist = path.join(from, 'dist');
  const toDist = path.join(to, 'dist');
  const packages = path.join(from, 'node_modules');
  const real = new Map<string, string>();
  const realOf = async (file: string) => {
    const known = real.get(file);
    if (known !== undefined) return known;
    const found = await realpath(file).catch(() => file);
    real.set(file, found);
    return found;
  };
  record.fileNames = await Promise.all(
    record.fileNames.map(async (name) => {
      const absolute = path.resolve(fromDist, name);
      const inside = path.relative(from, absolute);
      const project = !inside.startsWith('..') && !path.isAbsolute(inside);
      if (project && !absolute.startsWith(`${packages}${path.sep}`)) return name;
      const there = project ? path.join(to, inside) : absolute;
      return path.relative(toDist, await realOf(there));
    }),
  );
  await writeFile(file, JSON.stringify(record));
}
