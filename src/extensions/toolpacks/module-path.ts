import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { fail, ok, type Result } from '../../base/errors/index.js';
import { DEFAULT_CONTROLLER, DEFAULT_RUNNER } from './manifest-schema.js';
import type { ToolpackProblem } from './types.js';

export const HTTP_URL = /^https?:\/\//i;

export interface ModulePathOptions {
  field: 'runner' | 'controller';
  /** The manifest's value; absent or blank means the default file name, as in Suzumio. */
  value: string | undefined;
  /** The toolpack directory's real path. */
  directory: string;
  manifestFile: string;
  /** Whether the module must be there (the controller always, the runner when tools are declared). */
  mustExist: boolean;
}

/** The module's real path (undefined when it need not exist and was not looked for), or the problem. */
export type ModulePathResult = Result<string | undefined, ToolpackProblem>;

/**
 * Checks one module path of a manifest. The written path must be relative, stay inside the
 * directory and end in `.mjs`; when the module must exist, its real path (after every symlink)
 * must also be a `.mjs` file inside the directory's real path. Returns that real path.
 */
export async function checkModulePath(options: ModulePathOptions): Promise<ModulePathResult> {
  const { field, directory, manifestFile } = options;
  const fallback = field === 'runner' ? DEFAULT_RUNNER : DEFAULT_CONTROLLER;
  const declared = options.value !== undefined && options.value.trim() !== '';
  const written = declared ? (options.value as string) : fallback;
  const label = `${field} module "${written}"${declared ? '' : ' (the default)'}`;
  const refuse = (rule: ToolpackProblem['rule'], message: string): ModulePathResult =>
    fail({ file: manifestFile, rule, message: `${label} ${message}`, pointer: `/${field}` });

  if (HTTP_URL.test(written)) return refuse('path-http', 'is a URL; modules are local files in the toolpack');
  if (path.isAbsolute(written)) {
    return refuse('path-absolute', 'is absolute; write it relative to the toolpack directory');
  }
  const resolved = path.resolve(directory, written);
  if (!isInside(directory, resolved)) {
    return refuse('path-escape', `leaves the toolpack directory (resolves to ${resolved})`);
  }
  if (path.extname(resolved) !== '.mjs') {
    return refuse('module-extension', 'must end in .mjs (toolpack modules are JavaScript ESM)');
  }
  if (!options.mustExist) return ok(undefined);

  const missing = field === 'runner' ? 'runner-missing' : 'controller-missing';
  const why = field === 'runner' ? ' (required because the manifest declares tools)' : '';
  let real: string;
  let isFile: boolean;
  try {
    real = await realpath(resolved);
    isFile = (await stat(real)).isFile();
  } catch (error) {
    return refuse(missing, `does not exist${why}: ${resolved} (${(error as NodeJS.ErrnoException).code})`);
  }
  if (!isInside(directory, real)) {
    return refuse(
      'path-symlink-escape',
      `resolves through a symlink to ${real}, outside the toolpack directory`,
    );
  }
  if (path.extname(real) !== '.mjs') {
    return refuse('module-extension', `resolves through a symlink to ${real}, which does not end in .mjs`);
  }
  if (!isFile) return refuse(missing, `is not a file${why}: ${real}`);
  return ok(real);
}

/** Whether `target` is `root` itself or below it; both absolute and normalized. */
export function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return (
    relative === '' ||
    (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
  );
}
