import type { TSchema } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import { errorText, fail, ok, type Result, SwitchboardError } from '../../base/errors/index.js';
import { createAjv, dedupeIssues, describeSchemaError } from '../../base/validation/index.js';
import type { ApprovalVerdict } from './approval-gate.js';
import { crashReport } from './crash-report.js';
import type { ToolPolicy } from './policy.js';
import { asksByDefault } from './risk.js';
import { roleRefusal } from './role-policy.js';
import type { Tool, ToolCallOutcome, ToolContext } from './types.js';

const TOOL_NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
const MAX_RESULT_CHARS = 100_000;

interface Entry {
  tool: Tool;
  source: string;
  /** The tool's own (`validateParameters`), or compiled at the first call (`validatorOf`). */
  validate: ValidateFunction | undefined;
}

export interface ToolRegistry {
  /** Adds a tool; `source` names where it came from (`builtin`, a toolpack file) for error messages. */
  register(tool: Tool, source: string): void;
  /** Removes a tool (an MCP server's tool its server no longer lists); false when there was none. */
  unregister(name: string): boolean;
  get(name: string): Tool | undefined;
  /**
   * The tools a turn may see: allowed for the agent and for the turn's role (without a principal:
   * owner-only ones only in owner turns), and none whose prerequisite (`requires`) is missing.
   */
  visible(policy: ToolPolicy): Tool[];
  /** The registered tools whose prerequisite is missing, with why (doctor, /status). */
  unavailable(): { name: string; reason: string }[];
  /**
   * Changes whenever `visible` or `unavailable` may answer differently: a tool registered or
   * removed, or a tool with live availability (an MCP server's) going up or down. What is
   * computed from them may be kept until it changes (`createRiskSummaries`).
   */
  revision(): string;
  /**
   * Runs one call as the model wrote it. Never throws: unknown tools, refusals, invalid
   * arguments and exceptions all become an error outcome the model can read.
   */
  execute(
    name: string,
    rawArguments: string,
    policy: ToolPolicy,
    context: ToolContext,
  ): Promise<ToolCallOutcome>;
}

/**
 * One ajv instance per registry; a schema is checked against the JSON Schema meta-schema when its
 * tool is registered and compiled once, at the tool's first call (issue 36: compiling every tool's
 * schema was a fifth of start's CPU), unless the tool brings its compiled validator
 * (`validateParameters`: a toolpack tool, checked at load).
 */
export interface ToolRegistryOptions {
  /** Why a tool's prerequisite (`requires`) is missing; absent or undefined: it is available. */
  unmet?(tool: Tool): string | undefined;
  /** Takes the gateway's secret values out of what the model sees of a crashed tool. */
  scrub?(text: string): string;
  /** Stack paths of a crashed tool are shown relative to it; default the process's working directory. */
  root?: string;
}

export function createToolRegistry(options: ToolRegistryOptions = {}): ToolRegistry {
  const ajv = createAjv('authored');
  const entries = new Map<string, Entry>();
  /** Bumped at each register and unregister; the tools whose availability is live, apart. */
  let changes = 0;
  const live = new Map<string, Tool>();
  const unmet = (tool: Tool) =>
    tool.unavailable?.() ?? (tool.requires?.length ? options.unmet?.(tool) : undefined);

  function visibleEntry(name: string, policy: ToolPolicy): Entry | undefined {
    const entry = entries.get(name);
    return entry && policy.allows(name) ? entry : undefined;
  }

  return {
    register(tool, source) {
      entries.set(tool.name, checkedEntry(tool, source, entries, ajv));
      changes += 1;
      if (tool.unavailable) live.set(tool.name, tool);
      else live.delete(tool.name);
    },
    unregister(name) {
      changes += 1;
      live.delete(name);
      return entries.delete(name);
    },
    revision() {
      let revision = String(changes);
      for (const tool of live.values()) revision += `|${tool.unavailable?.() ?? ''}`;
      return revision;
    },
    get: (name) => entries.get(name)?.tool,
    visible(policy) {
      return [...entries.values()]
        .map((entry) => entry.tool)
        .filter((tool) => policy.allows(tool.name) && roleRefusal(policy, tool) === undefined)
        .filter((tool) => unmet(tool) === undefined);
    },
    unavailable() {
      return [...entries.values()].flatMap(({ tool }) => {
        const reason = unmet(tool);
        return reason === undefined ? [] : [{ name: tool.name, reason }];
      });
    },
    async execute(name, rawArguments, policy, context) {
      const entry = visibleEntry(name, policy);
      if (!entry) {
        const names = this.visible(policy).map((tool) => tool.name);
        return failure(`Unknown tool "${name}". Tools you can call: ${names.join(', ') || 'none'}.`);
      }
      const { tool } = entry;
      const refused = roleRefusal(policy, tool);
      if (refused !== undefined) return failure(refused);
      const missing = unmet(tool);
      if (missing !== undefined) return failure(`Tool ${name} is unavailable here: it ${missing}.`);
      const parsed = parseArguments(rawArguments);
      if (!parsed.ok) return failure(`Invalid arguments for ${name}: ${parsed.error}`);
      const validate = validatorOf(entry, ajv);
      if (!validate.ok) return failure(validate.error);
      if (!validate.value(parsed.value)) {
        const issues = dedupeIssues((validate.value.errors ?? []).map(describeSchemaError));
        const lines = issues.map((issue) => `${issue.path || '/'}: ${issue.message}`);
        return failure(
          `Invalid arguments for ${name}:\n${lines.join('\n')}\nFix the arguments and call again.`,
        );
      }
      const action = tool.actionOf?.(parsed.value as never);
      const actionRefused = action === undefined ? undefined : roleRefusal(policy, tool, action);
      if (actionRefused !== undefined) return failure(actionRefused);
      try {
        const verdict = await passGate(tool, parsed.value, context);
        if ('answer' in verdict) return success(verdict.answer, false);
        if (verdict.status !== 'approved') return success(verdict, false);
        const approved = verdict.always ? { ...context, approvedAlways: { by: verdict.by } } : context;
        const result = await tool.execute(parsed.value as never, approved);
        // A boundary tool that refuses (`ok: false`) does not end the run: the model can fix the call.
        return success(result, tool.boundary === true && (result as { ok?: unknown } | null)?.ok !== false);
      } catch (error) {
        if (context.signal.aborted) throw context.signal.reason;
        context.logger.error({ err: error, tool: name, run: context.runId }, 'tool failed');
        return failure(
          crashReport(name, error, {
            root: options.root ?? process.cwd(),
            ...(options.scrub ? { scrub: options.scrub } : {}),
          }),
        );
      }
    },
  };
}

/**
 * The approval gate for a call whose arguments passed the schema; no gate, no wait. A tool with
 * `review` decides per call; any other asks by default when it is `risky` or carries `exec` or
 * `control-plane`. A review that knows the result already (`answer`: refused, or no change) asks nobody.
 */
async function passGate(
  tool: Tool,
  input: object,
  context: ToolContext,
): Promise<ApprovalVerdict | { answer: unknown }> {
  const approvals = context.services.approvals;
  if (!approvals) return { status: 'approved', by: 'policy' };
  const review = tool.review ? await tool.review(input as never, context) : { risky: asksByDefault(tool) };
  if (review.answer !== undefined) return { answer: review.answer };
  return approvals.check({ tool: tool.name, input, review }, context);
}

/** The entry of a tool being registered; a bad name, a duplicate or a bad schema stops it. */
function checkedEntry(
  tool: Tool,
  source: string,
  entries: ReadonlyMap<string, Entry>,
  ajv: ReturnType<typeof createAjv>,
): Entry {
  // `__` is how providers encode `.` on the wire, so it is kept out of names.
  if (!TOOL_NAME.test(tool.name) || tool.name.includes('__')) {
    throw new SwitchboardError(
      'TOOL_INVALID',
      `${source}: tool name "${tool.name}" must be letters, digits, "_" or "-" (no "__"), in parts joined by "."`,
    );
  }
  const existing = entries.get(tool.name);
  if (existing) {
    throw new SwitchboardError(
      'TOOL_DUPLICATE',
      `tool "${tool.name}" is defined twice: by ${existing.source} and by ${source}`,
    );
  }
  if (tool.validateParameters) return { tool, source, validate: tool.validateParameters };
  let valid: unknown;
  try {
    valid = ajv.validateSchema(tool.parameters as TSchema);
  } catch (error) {
    valid = errorText(error);
  }
  if (valid !== true) {
    const why = typeof valid === 'string' ? valid : ajv.errorsText(ajv.errors);
    throw new SwitchboardError(
      'TOOL_INVALID',
      `${source}: tool "${tool.name}" has an invalid parameters schema: ${why}`,
    );
  }
  return { tool, source, validate: undefined };
}

/** The entry's validator, compiled at its first call and kept; a schema that does not compile is said to the model. */
function validatorOf(entry: Entry, ajv: ReturnType<typeof createAjv>): Result<ValidateFunction, string> {
  if (entry.validate) return ok(entry.validate);
  try {
    entry.validate = ajv.compile(entry.tool.parameters as TSchema);
    return ok(entry.validate);
  } catch (error) {
    return fail(
      `Tool ${entry.tool.name} has an invalid parameters schema (${entry.source}): ${errorText(error)}`,
    );
  }
}

/** The arguments as a JSON object; the error says what is wrong with them, for the model. */
function parseArguments(raw: string): Result<object> {
  if (raw.trim() === '') return ok({});
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return fail('the arguments must be a JSON object');
    }
    return ok(value);
  } catch (error) {
    return fail(`the arguments are not valid JSON (${errorText(error)})`);
  }
}

function failure(content: string): ToolCallOutcome {
  return { content, isError: true, endsRun: false };
}

function success(result: unknown, boundary: boolean): ToolCallOutcome {
  let content = JSON.stringify(result ?? { ok: true }) ?? 'null';
  if (content.length > MAX_RESULT_CHARS) {
    content = `${content.slice(0, MAX_RESULT_CHARS)}… [truncated: the result had ${content.length} characters]`;
  }
  const post =
    boundary &&
    typeof result === 'object' &&
    result !== null &&
    typeof (result as { post?: unknown }).post === 'string'
      ? (result as { post: string }).post
      : undefined;
  return { content, isError: false, endsRun: boundary, ...(post === undefined ? {} : { post }) };
}
