export { BUILTIN_TOOLPACK_TOOLS } from './builtin-names.js';
export {
  type BuiltinToolpackName,
  type LoadToolpacksOptions,
  type LoadToolpacksResult,
  loadToolpacks,
  type ToolpackEntry,
} from './load-toolpacks.js';
export {
  DEFAULT_CONTROLLER,
  DEFAULT_RUNNER,
  MANIFEST_FILE,
  type ManifestTool,
  type ManifestWebuiEntry,
  type ToolpackManifest,
  ToolpackManifestSchema,
} from './manifest-schema.js';
export type {
  LoadedTool,
  LoadedToolpack,
  LoadedWebuiEntry,
  ToolpackManifestResult,
  ToolpackProblem,
  ToolpackRule,
} from './types.js';
export { type LoadToolpackManifestOptions, loadToolpackManifest } from './validate-manifest.js';
