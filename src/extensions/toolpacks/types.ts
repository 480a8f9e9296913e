import type { ValidateFunction } from 'ajv';
import type { Result } from '../../base/errors/index.js';
import type { RiskClass } from '../../engine/tools/index.js';
import type { ManifestWebuiEntry } from './manifest-schema.js';

/**
 * Why a toolpack was refused. The codes are stable: tests, `switchboard doctor` and the web UI
 * match on them, so a code is never renamed or reused for another rule.
 */
export type ToolpackRule =
  // The config entry.
  | 'path-http'
  | 'directory-missing'
  // The manifest as a whole.
  | 'manifest-missing'
  | 'manifest-symlink-escape'
  | 'manifest-too-large'
  | 'manifest-json'
  | 'manifest-schema'
  | 'id-characters'
  | 'id-dot-segment'
  | 'id-mismatch'
  /** Neither tools nor WebUI entries (Suzumio refuses it too). */
  | 'nothing-offered'
  // The runner and controller modules.
  | 'path-absolute'
  | 'path-escape'
  | 'path-symlink-escape'
  | 'module-extension'
  | 'controller-missing'
  | 'runner-missing'
  // Tools and WebUI entries.
  | 'tool-name-invalid'
  | 'tool-duplicate-in-manifest'
  | 'input-schema-invalid'
  | 'webui-id-invalid'
  | 'webui-kind'
  | 'webui-duplicate-entry'
  // Checked at start, against the controller module (`webui-check.ts`).
  | 'webui-handler-missing'
  // Across the registered toolpacks.
  | 'toolpack-duplicate-id'
  | 'tool-duplicate';

/** One reason a toolpack was refused, naming the file to fix and the rule it breaks. */
export interface ToolpackProblem {
  /** Absolute path: the manifest, or the config file for problems in the config entry itself. */
  file: string;
  rule: ToolpackRule;
  /** One line that names the offending value and what is expected. */
  message: string;
  /** JSON pointer into `file` when the problem is at one place in it (`/tools/0/inputSchema`). */
  pointer?: string;
}

export interface LoadedTool {
  name: string;
  description: string;
  /** The manifest's schema as written; it compiles with ajv and has `type: "object"` at the top. */
  inputSchema: Record<string, unknown>;
  /**
   * `inputSchema` compiled by the loader's check, with the tool registry's ajv options (no optimizing pass): the
   * registry validates this tool's arguments with it instead of compiling the schema again.
   */
  validate: ValidateFunction;
  /** The manifest marks the tool risky: its calls ask an approver by default. */
  risky?: boolean;
  /** The manifest says a call may be repeated after a restart cut it short (`Tool.restartSafe`). */
  restartSafe?: boolean;
  /** The manifest's `risk` classes, as written; absent, `toolpackRisk` decides. */
  risk?: readonly RiskClass[];
}

/** A WebUI entry as loaded: `kind` defaulted to `panel` (Suzumio's default). */
export type LoadedWebuiEntry = Omit<ManifestWebuiEntry, 'kind'> & { kind: 'panel' | 'action' };

/** A local toolpack whose manifest passed every rule. All paths are absolute and symlink-free. */
export interface LoadedToolpack {
  id: string;
  /** The toolpack directory's real path. */
  directory: string;
  manifestFile: string;
  /** Present exactly when the manifest declares tools (a WebUI-only toolpack needs no runner). */
  runnerModule?: string;
  controllerModule: string;
  tools: LoadedTool[];
  webui: LoadedWebuiEntry[];
}

/** The toolpack, or every problem of the last stage of checks it reached. */
export type ToolpackManifestResult = Result<LoadedToolpack, ToolpackProblem[]>;
