import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from './schema/schema.js';

/** The toolpacks shipped with Switchboard (`toolpacks/` in the package; the same from `src/` and `dist/`). */
export const PACKAGED_TOOLPACKS_DIR = fileURLToPath(new URL('../../../toolpacks/', import.meta.url));
const PACKAGE_ROOT = path.dirname(path.resolve(PACKAGED_TOOLPACKS_DIR));

/**
 * What a gateway on built-in defaults (no config file) registers: the core toolpack and the
 * packaged scheduler and plan toolpacks. A config file lists its own (the example lists these).
 * With `configFile`, the paths are written as a user would write them in that file: relative to
 * it (`../toolpacks/scheduler`) when the file is inside the Switchboard checkout, absolute (the
 * installation's path) otherwise.
 */
export function defaultToolpackEntries(configFile?: string): Config['tools']['toolpacks'] {
  const at = (name: string) => {
    const absolute = path.join(PACKAGED_TOOLPACKS_DIR, name);
    if (configFile === undefined || !isInside(path.resolve(configFile), PACKAGE_ROOT)) return absolute;
    const relative = path
      .relative(path.dirname(path.resolve(configFile)), absolute)
      .split(path.sep)
      .join('/');
    return relative.startsWith('../') ? relative : `./${relative}`;
  };
  return ['core', { path: at('scheduler'), id: 'scheduler' }, { path: at('plan'), id: 'plan' }];
}

/**
 * What an absent config file stands for where the built-in defaults differ from the schema's (the
 * packaged toolpacks): the first edit of that file, from chat or the shell, writes it, so that
 * nothing the gateway ran with disappears.
 */
export function absentConfigFile(configFile: string): Record<string, unknown> {
  return { tools: { toolpacks: defaultToolpackEntries(configFile) } };
}

function isInside(file: string, dir: string): boolean {
  const relative = path.relative(dir, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}
