import path from 'node:path';
import { type LoadedToolpack, loadToolpackManifest } from '../../src/extensions/toolpacks/index.js';

/** The test fixtures folder (`test/fixtures`), absolute. */
export const FIXTURES_DIR = path.resolve(import.meta.dirname, '../fixtures');

/**
 * Loads the toolpack in `directory` (absolute) as a config file beside it would list it, with
 * `configuredId` when the config gives one. Throws, naming the directory and the problems, when it
 * does not load: a fixture that fails to load is a broken test, not a result.
 */
export async function loadToolpackFixture(directory: string, configuredId?: string): Promise<LoadedToolpack> {
  const loaded = await loadToolpackManifest({
    directory,
    configPath: path.join(path.dirname(directory), 'gateway.jsonc'),
    ...(configuredId === undefined ? {} : { configuredId }),
  });
  if (!loaded.ok) throw new Error(`toolpack ${directory} did not load: ${JSON.stringify(loaded.error)}`);
  return loaded.value;
}
