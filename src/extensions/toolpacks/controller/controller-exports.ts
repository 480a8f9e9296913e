import type { ToolOutput } from '../runner/types.js';

/**
 * How a controller module's exports are found, following Suzumio (`src/engine/tools.ts`, `externalSupport`
 * and `externalWebui`; `docs/toolpacks.md`, "Controller Module", "Scheduler Hooks", "WebUI Registration").
 * Pure lookups on an imported module namespace; running and error wrapping are the host's.
 */

export type ModuleExports = Readonly<Record<string, unknown>>;
type Callable = (...parameters: unknown[]) => unknown;
/** A handler bound to its tool or entry: call it with the input. */
export type BoundHandler = (input: unknown) => unknown;

function isObject(value: unknown): value is Record<string, unknown> {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}

/**
 * The function `map[name]`, bound to `map`. Own properties and those of a class's prototypes count;
 * `Object.prototype`'s (`toString`, `constructor`) do not, so a tool with such a name is not "handled" by
 * a plain object that lacks it.
 */
function methodOf(map: unknown, name: string): BoundHandler | undefined {
  if (!isObject(map)) return undefined;
  for (let owner: object | null = map; owner !== null && owner !== Object.prototype; ) {
    if (Object.hasOwn(owner, name)) {
      const value = map[name];
      return typeof value === 'function' ? (input) => (value as Callable).call(map, input) : undefined;
    }
    owner = Object.getPrototypeOf(owner) as object | null;
  }
  return undefined;
}

/** `createControllerToolpack`, else a default export that is a function (either may be async). */
export function controllerFactory(module: ModuleExports): Callable | undefined {
  const factory = module.createControllerToolpack ?? module.default;
  return typeof factory === 'function' ? (factory as Callable) : undefined;
}

/**
 * The handler of `tool` in what the factory returned: `{ support(tool, input) }`, else `{ tools: map }`,
 * else the value itself as a handler map (Suzumio's order).
 */
export function supportHandler(instance: unknown, tool: string): BoundHandler | undefined {
  if (isObject(instance) && typeof instance.support === 'function') {
    const support = instance.support as Callable;
    return (input) => support.call(instance, tool, input);
  }
  const handlers = isObject(instance) && isObject(instance.tools) ? instance.tools : instance;
  return methodOf(handlers, tool);
}

/**
 * The handler of WebUI entry `entryId`. The source is `createWebuiToolpack(context)` (may be async),
 * else a `webui` export, else a default export that is an object: unlike Suzumio, a default *function*
 * is left alone here, since it is the controller factory. A source that is a function dispatches every
 * entry (`source(entryId, input)`); an object is `{ webui: map }`, `{ tools: map }` or the map itself.
 */
export async function webuiHandler(
  module: ModuleExports,
  entryId: string,
  context: unknown,
): Promise<BoundHandler | undefined> {
  let source: unknown;
  if (typeof module.createWebuiToolpack === 'function') {
    source = await (module.createWebuiToolpack as Callable)(context);
  } else if (module.webui !== undefined) {
    source = module.webui;
  } else if (typeof module.default === 'object') {
    source = module.default;
  }
  if (typeof source === 'function') return (input) => (source as Callable)(entryId, input);
  if (!isObject(source)) return undefined;
  const handlers = source.webui ?? source.tools ?? source;
  return methodOf(handlers, entryId);
}

export type SchedulerHookFunction = (context: Record<string, unknown>) => Promise<unknown>;

/**
 * The module's scheduler hook: `schedulerTick(context)`, else `createSchedulerToolpack(context)`. Both
 * take the tick's context and are called on every tick. What `createSchedulerToolpack` returns is, in
 * turn, called with the same context when it is a function or has a `tick` (or `schedulerTick`)
 * method; otherwise it is the tick's result itself (signals or nothing), as for `schedulerTick`.
 */
export function schedulerHook(module: ModuleExports): SchedulerHookFunction | undefined {
  const { schedulerTick, createSchedulerToolpack } = module;
  if (typeof schedulerTick === 'function') return async (context) => (schedulerTick as Callable)(context);
  if (typeof createSchedulerToolpack !== 'function') return undefined;
  return async (context) => {
    const made = await (createSchedulerToolpack as Callable)(context);
    if (typeof made === 'function') return (made as Callable)(context);
    const tick = methodOf(made, 'tick') ?? methodOf(made, 'schedulerTick');
    return tick ? tick(context) : made;
  };
}

/**
 * A controller handler's answer (in process, so undefined is possible) as a tool output: an object
 * (arrays too) with `output` keeps `output` as it is, a string `title` and a defined `metadata`; any
 * other value is the output itself, and nothing (undefined) is the empty output `''`. Not the
 * runner's rule (`toolOutputFromRunner`, where nothing is null): toolpack authors depend on each.
 */
export function toolOutputFromController(value: unknown): ToolOutput {
  if (typeof value === 'object' && value !== null && 'output' in value) {
    const { output, title, metadata } = value as Record<string, unknown>;
    const result: ToolOutput = { output };
    if (typeof title === 'string') result.title = title;
    if (metadata !== undefined) result.metadata = metadata;
    return result;
  }
  return { output: value === undefined ? '' : value };
}
