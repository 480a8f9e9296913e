/**
 * The toolpack runner: one process per agent, forked by the gateway's runner host (`runner-host.ts`)
 * under Node's permission model. It imports the agent's toolpack runner modules and runs their
 * handlers; `protocol.ts` describes the messages. Plain, dependency-free ESM on purpose: the build
 * copies it to `dist` as it is, and it must load with read access to nothing but itself.
 *
 * A toolpack instance (the factory's tool map) is made per activation, because its context carries
 * the activation id; the instances of the 16 most recently used activations are kept (LRU).
 */
import { pathToFileURL } from 'node:url';

const INSTANCE_CACHE_SIZE = 16;

/** @type {Map<string, { id: string; tools: string[]; factory?: Function; rejected?: string }>} */
const toolpacks = new Map();
/** activation id -> toolpack id -> the instance's handlers, in least recently used order. */
const instances = new Map();
/** Requests to the host that wait for a `reply`. */
const requests = new Map();
let nextRequestId = 1;
let setup;
let markReady;
const ready = new Promise((resolve) => {
  markReady = resolve;
});

function send(message) {
  try {
    process.send(message);
    return undefined;
  } catch (error) {
    return error;
  }
}

function describe(error) {
  return error instanceof Error ? error.message : String(error);
}

class Refusal extends Error {}

async function initialize(message) {
  setup = message;
  const rejected = {};
  for (const spec of message.toolpacks) {
    const entry = { id: spec.id, tools: spec.tools };
    try {
      const module = await import(pathToFileURL(spec.runnerModule).href);
      const factory =
        typeof module.createRunnerToolpack === 'function' ? module.createRunnerToolpack : module.default;
      if (typeof factory === 'function') entry.factory = factory;
      else
        entry.rejected = `its runner module exports neither createRunnerToolpack(context) nor a default factory`;
    } catch (error) {
      entry.rejected = `its runner module failed to load: ${describe(error)}`;
    }
    if (entry.rejected !== undefined) {
      entry.rejected = `toolpack ${spec.id} is rejected: ${entry.rejected}`;
      rejected[spec.id] = entry.rejected;
    }
    toolpacks.set(spec.id, entry);
  }
  markReady();
  send({ type: 'ready', rejected });
}

function request(type, fields) {
  const id = nextRequestId++;
  return new Promise((resolve, reject) => {
    requests.set(id, { resolve, reject });
    const failed = send({ type, id, ...fields });
    if (failed !== undefined) {
      requests.delete(id);
      reject(failed);
    }
  });
}

function createContext(entry, activationId) {
  const base = { activationId, toolpackId: entry.id };
  return {
    project: setup.project,
    agentId: setup.agentId,
    activationId,
    workspace: setup.workspace,
    toolpackId: entry.id,
    callSupport: (tool, input) => request('callSupport', { ...base, tool, input: input ?? {} }),
    recordSignal: async (signal) => {
      await request('recordSignal', { ...base, signal });
    },
  };
}

/** Runs the factory and checks that every declared tool has a handler. */
async function createInstance(entry, activationId) {
  const instance = await entry.factory(createContext(entry, activationId));
  const tools = instance?.tools;
  const handlers = typeof tools === 'object' && tools !== null ? tools : instance;
  if (typeof handlers !== 'object' || handlers === null) {
    throw new Refusal(
      `toolpack ${entry.id} is rejected: its factory returned neither a tool map nor { tools }`,
    );
  }
  const missing = entry.tools.filter((name) => typeof handlers[name] !== 'function');
  if (missing.length > 0) {
    const list = missing.map((name) => `"${name}"`).join(', ');
    const noun = missing.length === 1 ? 'tool' : 'tools';
    throw new Refusal(
      `toolpack ${entry.id} is rejected: its runner module has no handler for declared ${noun} ${list}`,
    );
  }
  return handlers;
}

function instanceFor(entry, activationId) {
  let byToolpack = instances.get(activationId);
  if (byToolpack === undefined) byToolpack = new Map();
  instances.delete(activationId);
  instances.set(activationId, byToolpack);
  if (instances.size > INSTANCE_CACHE_SIZE) instances.delete(instances.keys().next().value);
  let instance = byToolpack.get(entry.id);
  if (instance === undefined) {
    instance = createInstance(entry, activationId);
    byToolpack.set(entry.id, instance);
    // A failed factory is not kept: the next call of the activation tries again.
    instance.catch(() => byToolpack.delete(entry.id));
  }
  return instance;
}

async function runCall({ id, toolpackId, tool, input, activationId }) {
  await ready;
  const entry = toolpacks.get(toolpackId);
  let handlers;
  try {
    if (entry === undefined) throw new Refusal(`toolpack ${toolpackId} is not loaded in this runner`);
    if (entry.rejected !== undefined) throw new Refusal(entry.rejected);
    handlers = await instanceFor(entry, activationId);
  } catch (error) {
    const failure = error instanceof Refusal ? {} : { stack: error?.stack ?? describe(error) };
    const text =
      error instanceof Refusal ? error.message : `toolpack ${toolpackId} failed to start: ${describe(error)}`;
    send({ type: 'error', id, error: text, ...failure });
    return;
  }
  let result;
  try {
    result = await handlers[tool](input);
  } catch (error) {
    send({
      type: 'error',
      id,
      error: `${tool} failed: ${describe(error)}`,
      stack: error?.stack ?? describe(error),
    });
    return;
  }
  const failed = send({ type: 'result', id, result });
  if (failed !== undefined) {
    send({
      type: 'error',
      id,
      error: `${tool} failed: its result cannot be sent as JSON (${describe(failed)})`,
    });
  }
}

function settleRequest({ id, ok, result, error }) {
  const waiting = requests.get(id);
  if (waiting === undefined) return;
  requests.delete(id);
  if (ok) waiting.resolve(result);
  else waiting.reject(new Error(error));
}

process.on('message', (message) => {
  if (message?.type === 'init') void initialize(message);
  else if (message?.type === 'call') void runCall(message);
  else if (message?.type === 'reply') settleRequest(message);
  else if (message?.type === 'ping') send({ type: 'pong', id: message.id });
});

// Without the gateway there is nobody to answer; a runner never outlives its channel.
process.on('disconnect', () => process.exit(0));

// A stray rejection in a toolpack module is reported (stderr reaches the gateway log) and the runner stays up.
process.on('unhandledRejection', (reason) => {
  console.error('unhandled rejection in a toolpack runner module:', reason);
});
