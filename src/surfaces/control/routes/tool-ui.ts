import type { ValidateFunction } from 'ajv';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorText } from '../../../base/errors/index.js';
import { createAjv, describeSchemaError } from '../../../base/validation/index.js';
import { type AccessPolicy, requireOwner } from '../../http/index.js';
import type {
  RosterAgentView,
  RosterView,
  ToolStatusPage,
  ToolStatusView,
  WebuiAnswer,
  WebuiEntriesView,
  WebuiEntryView,
} from '../contracts.js';

/** One toolpack WebUI entry as the toolpacks declare it (the route answers it as `WebuiEntryView`). */
export interface WebuiEntry {
  /** The id of the toolpack that declares the entry. */
  toolpack: string;
  id: string;
  title: string;
  description?: string | undefined;
  kind: 'panel' | 'action';
  /** A JSON Schema with `type: "object"` at the top; a run's input is validated against it. */
  inputSchema?: Record<string, unknown> | undefined;
  submitLabel?: string | undefined;
}

export interface ToolUiOptions {
  /** The configured project id: `:project` in every route must equal it, else 404. */
  projectId: string;
  /** The entries that can run (their handlers were found at start); read on every request. */
  entries(): readonly WebuiEntry[];
  /**
   * Runs a listed entry's controller-side handler with input already validated against its schema.
   * A rejection with a `statusCode` from 400 to 499 (the controller refused the input, as
   * `ToolpackInputError`) is answered with that status, its message and `path`; any other is
   * answered 500 with its message (never its stack). `run` logs its own failures.
   */
  run(toolpackId: string, entryId: string, input: unknown): Promise<WebuiAnswer>;
  /** The agents offered in the Tools page's `sender`, `recipient`, … dropdowns. */
  roster(): readonly RosterAgentView[];
  /**
   * Per-tool status (`GET /api/projects/:project/tool-status`): each registered tool, the agents
   * allowed it, its calls, failures and running calls. Absent: the route answers an empty list.
   */
  toolStatus?(): Promise<readonly ToolStatusView[]> | readonly ToolStatusView[];
}

type ProjectParams = { project: string };
type EntryParams = ProjectParams & { toolpack: string; entry: string };

/**
 * The Tools page and its API: `GET /tools`, `GET /api/projects/:project/tool-ui` (the entries),
 * `POST /api/projects/:project/tool-ui/:toolpack/:entry` (runs one), `GET /api/projects/:project/roster`
 * and `GET /api/projects/:project/tool-status` (per-tool status).
 * All sit behind the token, like the rest of the API, and are for owners only (403 naming the
 * sender, before the project, the entry or the input is looked at): an entry acts as the project's
 * agents (sends their messages, schedules jobs).
 */
export function registerToolUiRoutes(
  app: FastifyInstance,
  options: ToolUiOptions,
  access: AccessPolicy,
): void {
  const validate = createInputValidator();
  const ownerOnly = {
    onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
      if (!requireOwner(request, reply, access)) return reply;
    },
  };
  const unknownProject = (project: string, reply: FastifyReply) => {
    if (project === options.projectId) return false;
    void reply.code(404).send({ error: 'not_found', message: `unknown project: ${project}` });
    return true;
  };

  app.get<{ Params: ProjectParams }>('/api/projects/:project/tool-ui', ownerOnly, async (request, reply) => {
    const { project } = request.params;
    if (unknownProject(project, reply)) return reply;
    // Every key is present; what the manifest leaves out is null, so clients see one shape.
    const entries = options.entries().map(
      (entry): WebuiEntryView => ({
        toolpack: entry.toolpack,
        id: entry.id,
        title: entry.title,
        description: entry.description ?? null,
        kind: entry.kind,
        inputSchema: entry.inputSchema ?? null,
        submitLabel: entry.submitLabel ?? null,
      }),
    );
    return { project, entries } satisfies WebuiEntriesView;
  });

  app.get<{ Params: ProjectParams }>('/api/projects/:project/roster', ownerOnly, async (request, reply) => {
    if (unknownProject(request.params.project, reply)) return reply;
    return {
      agents: options.roster().map(({ id, displayName }) => ({ id, displayName })),
    } satisfies RosterView;
  });

  app.get<{ Params: ProjectParams }>(
    '/api/projects/:project/tool-status',
    ownerOnly,
    async (request, reply) => {
      if (unknownProject(request.params.project, reply)) return reply;
      const tools = [...((await options.toolStatus?.()) ?? [])];
      return { project: request.params.project, tools } satisfies ToolStatusPage;
    },
  );

  app.post<{ Params: EntryParams; Body: unknown }>(
    '/api/projects/:project/tool-ui/:toolpack/:entry',
    ownerOnly,
    async (request, reply) => {
      const { project, toolpack, entry: entryId } = request.params;
      if (unknownProject(project, reply)) return reply;
      const entry = options.entries().find((known) => known.toolpack === toolpack && known.id === entryId);
      if (!entry) {
        const known = options.entries().some((listed) => listed.toolpack === toolpack);
        const message = known
          ? `the ${toolpack} toolpack has no WebUI entry ${entryId}`
          : `unknown toolpack: ${toolpack}`;
        return reply.code(404).send({ error: 'not_found', message });
      }
      // A panel is usually opened without a body: no input is an empty object.
      const input = request.body ?? {};
      const invalid = entry.inputSchema ? validate(entry.inputSchema, input) : undefined;
      if (invalid) {
        const message = `input ${invalid.path}: ${invalid.message}`;
        return reply.code(400).send({ error: 'bad_request', path: invalid.path, message });
      }
      try {
        const { output, title, metadata } = await options.run(toolpack, entryId, input);
        return { output, title, metadata } satisfies WebuiAnswer;
      } catch (error) {
        return answerRunFailure(reply, { toolpack, entryId }, error);
      }
    },
  );
}

/** A rejected run: the controller's refusal (400–499) with its status and `path`, anything else 500. */
function answerRunFailure(
  reply: FastifyReply,
  where: { toolpack: string; entryId: string },
  error: unknown,
): FastifyReply {
  const refused = clientStatus(error);
  if (refused !== undefined) {
    const path = (error as { path?: unknown }).path;
    const message = (error as Error).message;
    return reply
      .code(refused)
      .send({ error: 'bad_request', ...(typeof path === 'string' ? { path } : {}), message });
  }
  const message = failureMessage(where.toolpack, where.entryId, errorText(error));
  return reply.code(500).send({ error: 'webui_failed', message });
}

/** A rejection that says the input was the caller's mistake: its `statusCode` (400–499). */
function clientStatus(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status <= 499 ? status : undefined;
}

/**
 * The controller host's own messages already name the entry and the toolpack
 * (`counter.fail failed in the counter controller: …`); others get both put in front.
 */
function failureMessage(toolpack: string, entryId: string, reason: string): string {
  if (reason.includes(entryId) && reason.includes(toolpack)) return reason;
  return `WebUI entry ${entryId} of the ${toolpack} toolpack failed: ${reason}`;
}

/**
 * Validates run input against entry schemas: each schema is compiled once (keyed by the schema
 * object) with the tool registry's options, defaults filled in. `addUsedSchema: false` keeps one
 * toolpack's `$id` from clashing with another's. Answers the first problem as a JSON pointer
 * (`/` for the input itself) and a message, or undefined when the input is valid.
 */
function createInputValidator() {
  const ajv = createAjv('authored', { allErrors: false, addUsedSchema: false });
  const compiled = new WeakMap<object, ValidateFunction>();
  return (schema: Record<string, unknown>, input: unknown): { path: string; message: string } | undefined => {
    let check = compiled.get(schema);
    if (!check) {
      check = ajv.compile(schema);
      compiled.set(schema, check);
    }
    if (check(input)) return undefined;
    const [first] = check.errors ?? [];
    if (!first) return { path: '/', message: 'is invalid' };
    const issue = describeSchemaError(first);
    return { path: issue.path || '/', message: issue.message };
  };
}
