import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ValidateFunction } from 'ajv';
import { fail, ok } from '../../base/errors/index.js';
import { checkEntries, parseManifest } from './manifest-content.js';
import { MANIFEST_FILE } from './manifest-schema.js';
import { checkModulePath, HTTP_URL } from './module-path.js';
import { readManifest } from './read-manifest.js';
import type { ToolpackManifestResult, ToolpackProblem } from './types.js';

export interface LoadToolpackManifestOptions {
  /** The configured `path`: the toolpack directory, relative to the config file's directory. */
  directory: string;
  /** The configured `id`; when given, the manifest's id must equal it. */
  configuredId?: string;
  /** The config file the entry came from; problems in the entry itself name it. */
  configPath: string;
}

/**
 * Reads and checks one local toolpack without running any of its code. Checks run in stages
 * (the config entry, the manifest's JSON and schema, then every rule on its content); a stage
 * that fails ends the load, and all problems of the last stage reached are returned together.
 * Never throws for a bad toolpack: every refusal is a problem naming its file and rule.
 */
export async function loadToolpackManifest(
  options: LoadToolpackManifestOptions,
): Promise<ToolpackManifestResult> {
  const { configPath } = options;
  const failed = (problems: ToolpackProblem[]): ToolpackManifestResult => fail(problems);

  if (HTTP_URL.test(options.directory)) {
    const message = `toolpack path "${options.directory}" is a URL; toolpacks are local directories`;
    return failed([{ file: configPath, rule: 'path-http', message }]);
  }
  const written = path.resolve(path.dirname(configPath), options.directory);
  const directory = await realDirectory(written);
  if (typeof directory !== 'string') {
    const message = `toolpack path "${options.directory}" ${directory.reason}: ${written}`;
    return failed([{ file: configPath, rule: 'directory-missing', message }]);
  }

  // Problems in the manifest name it as the operator wrote the path; the result holds real paths.
  const shownManifest = path.join(written, MANIFEST_FILE);
  const read = await readManifest(directory, shownManifest);
  if (!read.ok) return failed([read.error]);
  const parsed = parseManifest(read.value, shownManifest);
  if (!parsed.ok) return failed(parsed.error);
  const manifest = parsed.value;

  const problems: ToolpackProblem[] = [];
  if (options.configuredId !== undefined && options.configuredId !== manifest.id) {
    problems.push({
      file: shownManifest,
      rule: 'id-mismatch',
      message: `manifest id "${manifest.id}" differs from the configured id "${options.configuredId}" in ${configPath}`,
      pointer: '/id',
    });
  }
  const common = { directory, manifestFile: shownManifest };
  const [controller, runner] = await Promise.all([
    checkModulePath({ ...common, field: 'controller', value: manifest.controller, mustExist: true }),
    checkModulePath({
      ...common,
      field: 'runner',
      value: manifest.runner,
      mustExist: manifest.tools.length > 0,
    }),
  ]);
  if (!controller.ok) problems.push(controller.error);
  if (!runner.ok) problems.push(runner.error);
  const entries = checkEntries(manifest, shownManifest);
  problems.push(...entries.problems);
  if (problems.length > 0 || !controller.ok || !runner.ok || controller.value === undefined) {
    return failed(problems);
  }

  return ok({
    id: manifest.id,
    directory,
    manifestFile: path.join(directory, MANIFEST_FILE),
    ...(runner.value === undefined ? {} : { runnerModule: runner.value }),
    controllerModule: controller.value,
    tools: manifest.tools.map(({ name, description, inputSchema, risky, restartSafe, risk }, index) => ({
      name,
      description,
      inputSchema,
      ...(risky === true ? { risky } : {}),
      ...(restartSafe === true ? { restartSafe } : {}),
      ...(risk === undefined ? {} : { risk }),
      // No problem was found, so every tool's schema compiled.
      validate: entries.validators[index] as ValidateFunction,
    })),
    webui: (manifest.webui ?? []).map(({ id, title, description, kind, inputSchema, submitLabel }) => ({
      id,
      title,
      kind: kind ?? 'panel',
      ...(description === undefined ? {} : { description }),
      ...(inputSchema === undefined ? {} : { inputSchema }),
      ...(submitLabel === undefined ? {} : { submitLabel }),
    })),
  });
}

async function realDirectory(written: string): Promise<string | { reason: string }> {
  try {
    const real = await realpath(written);
    return (await stat(real)).isDirectory() ? real : { reason: 'is not a directory' };
  } catch (error) {
    return { reason: `does not exist (${(error as NodeJS.ErrnoException).code})` };
  }
}
