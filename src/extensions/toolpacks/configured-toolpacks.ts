import path from 'node:path';
import { type Config, DEFAULT_CONFIG_PATH, defaultToolpackEntries } from '../../base/config/index.js';
import { GATEWAY_TOOLS } from '../../engine/tools/index.js';
import { BUILTIN_TOOLPACK_TOOLS } from './builtin-names.js';
import { type LoadToolpacksResult, loadToolpacks } from './load-toolpacks.js';

/** Tool names no toolpack may take: the gateway's own tools and every built-in toolpack's. */
export function reservedToolNames(): string[] {
  return [...GATEWAY_TOOLS.map((tool) => tool.name), ...Object.values(BUILTIN_TOOLPACK_TOOLS).flat()];
}

/**
 * Loads (validates) the toolpacks a config registers; never runs toolpack code. `configPath` is
 * undefined on built-in defaults, which load the packaged toolpacks.
 */
export function loadConfiguredToolpacks(
  config: Config,
  configPath: string | undefined,
): Promise<LoadToolpacksResult> {
  return loadToolpacks({
    entries: configPath === undefined ? defaultToolpackEntries() : config.tools.toolpacks,
    configPath: configPath ?? path.resolve(DEFAULT_CONFIG_PATH),
    builtinToolNames: reservedToolNames(),
  });
}
