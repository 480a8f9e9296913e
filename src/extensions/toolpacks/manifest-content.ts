import type { ErrorObject, ValidateFunction } from 'ajv';
import { fail, ok, type Result } from '../../base/errors/index.js';
import { createAjv, describeSchemaError, GATEWAY_SCHEMA_ONCE } from '../../base/validation/index.js';
import { createInputSchemaCompiler } from './input-schema.js';
import {
  MANIFEST_FILE,
  NOT_BLANK_PATTERN,
  type ToolpackManifest,
  ToolpackManifestSchema,
} from './manifest-schema.js';
import type { ToolpackProblem, ToolpackRule } from './types.js';

const ID_CHARACTERS = 'may contain only letters, digits, ".", "_" and "-"';
const DOT_SEGMENT = /^\.\.?$/;
const DOT_SEGMENT_RULE = 'is a path segment ("." or ".."), which names a directory, not a toolpack';

/** Schema failures that have a rule of their own: pointer shape, ajv keyword, rule, message. */
const RULES_BY_FIELD: ReadonlyArray<{
  shape: RegExp;
  keyword: string;
  /** When given, the rule applies only to offending values it matches. */
  value?: RegExp;
  rule: ToolpackRule;
  describe: (value: string) => string;
}> = [
  {
    shape: /^\/id$/,
    keyword: 'pattern',
    value: DOT_SEGMENT,
    rule: 'id-dot-segment',
    describe: (id) => `toolpack id "${id}" ${DOT_SEGMENT_RULE}`,
  },
  {
    shape: /^\/id$/,
    keyword: 'pattern',
    rule: 'id-characters',
    describe: (id) => `toolpack id "${id}" ${ID_CHARACTERS}`,
  },
  {
    shape: /^\/tools\/\d+\/name$/,
    keyword: 'pattern',
    rule: 'tool-name-invalid',
    describe: (name) =>
      `tool name "${name}" must be letters, digits, "_" or "-" (no "__"), in parts joined by "."`,
  },
  {
    shape: /^\/webui\/\d+\/id$/,
    keyword: 'pattern',
    rule: 'webui-id-invalid',
    describe: (id) =>
      DOT_SEGMENT.test(id)
        ? `WebUI entry id "${id}" ${DOT_SEGMENT_RULE} (it appears in URLs)`
        : `WebUI entry id "${id}" ${ID_CHARACTERS} (it appears in URLs)`,
  },
  {
    shape: /^\/webui\/\d+\/kind$/,
    keyword: 'enum',
    rule: 'webui-kind',
    describe: (kind) => `WebUI entry kind "${kind}" must be "panel" or "action"`,
  },
];

/** Parses the manifest text and checks it against the schema. Every failure is a problem in `file`. */
export function parseManifest(text: string, file: string): Result<ToolpackManifest, ToolpackProblem[]> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = `${MANIFEST_FILE} is not valid JSON: ${(error as Error).message}`;
    return fail([{ file, rule: 'manifest-json', message }]);
  }
  const validate = manifestValidator();
  if (validate(value)) return ok(value);
  return fail((validate.errors ?? []).map((error) => schemaProblem(error, file, value)));
}

/** ` (tool "x.run")` for a failure inside a tool entry that has a name; otherwise empty. */
function toolOf(pointer: string, manifest: unknown): string {
  const index = /^\/tools\/(\d+)\//.exec(pointer)?.[1];
  if (index === undefined) return '';
  const name = (manifest as { tools?: { name?: unknown }[] }).tools?.[Number(index)]?.name;
  return typeof name === 'string' ? ` (tool "${name}")` : '';
}

function schemaProblem(error: ErrorObject, file: string, manifest: unknown): ToolpackProblem {
  const issue = describeSchemaError(error);
  const pointer = issue.path;
  const special = RULES_BY_FIELD.find(
    (candidate) =>
      candidate.keyword === error.keyword &&
      candidate.shape.test(error.instancePath) &&
      (candidate.value === undefined || candidate.value.test(String(error.data))),
  );
  if (special) return { file, rule: special.rule, message: special.describe(String(error.data)), pointer };
  const blank = error.keyword === 'pattern' && error.params.pattern === NOT_BLANK_PATTERN;
  const message = `${pointer || '/'}${toolOf(pointer, manifest)}: ${blank ? 'must not be blank' : issue.message}`;
  return { file, rule: 'manifest-schema', message, pointer };
}

/** The manifest schema is constant, so it is compiled once per process. */
let compiled: ValidateFunction<ToolpackManifest> | undefined;
function manifestValidator(): ValidateFunction<ToolpackManifest> {
  // `verbose` keeps the offending value on each error, for messages that quote it.
  compiled ??= createAjv('gateway', {
    ...GATEWAY_SCHEMA_ONCE,
    verbose: true,
    useDefaults: false,
  }).compile<ToolpackManifest>(ToolpackManifestSchema);
  return compiled;
}

export interface CheckedEntries {
  problems: ToolpackProblem[];
  /** Each tool's compiled input validator, by its index in `tools` (absent where it was refused). */
  validators: (ValidateFunction | undefined)[];
}

/** Rule checks on the parsed entries: unique tool names and WebUI ids, compilable input schemas. */
export function checkEntries(manifest: ToolpackManifest, file: string): CheckedEntries {
  const problems: ToolpackProblem[] = [];
  if (manifest.tools.length === 0 && (manifest.webui ?? []).length === 0) {
    problems.push({
      file,
      rule: 'nothing-offered',
      message:
        'the toolpack offers nothing: declare at least one tool in "tools" or one entry in "webui" (Suzumio refuses such a toolpack too)',
      pointer: '/tools',
    });
  }
  const compiler = createInputSchemaCompiler();
  const toolIndexes = new Map<string, number>();
  const validators = manifest.tools.map((tool, index) => {
    const first = toolIndexes.get(tool.name);
    if (first !== undefined) {
      const message = `tool "${tool.name}" is declared twice (at /tools/${first} and /tools/${index})`;
      problems.push({ file, rule: 'tool-duplicate-in-manifest', message, pointer: `/tools/${index}/name` });
    } else toolIndexes.set(tool.name, index);
    const compiled = compiler.tool(tool.inputSchema);
    if (compiled.ok) return compiled.value;
    const pointer = `/tools/${index}/inputSchema`;
    problems.push({ file, rule: 'input-schema-invalid', message: `${pointer} ${compiled.error}`, pointer });
    return undefined;
  });
  const entryIndexes = new Map<string, number>();
  (manifest.webui ?? []).forEach((entry, index) => {
    const first = entryIndexes.get(entry.id);
    if (first !== undefined) {
      const message = `WebUI entry "${entry.id}" is declared twice (at /webui/${first} and /webui/${index})`;
      problems.push({ file, rule: 'webui-duplicate-entry', message, pointer: `/webui/${index}/id` });
    } else entryIndexes.set(entry.id, index);
    const invalid = entry.inputSchema === undefined ? undefined : compiler.webui(entry.inputSchema);
    if (invalid) {
      const pointer = `/webui/${index}/inputSchema`;
      problems.push({ file, rule: 'input-schema-invalid', message: `${pointer} ${invalid}`, pointer });
    }
  });
  return { problems, validators };
}
