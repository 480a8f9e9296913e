import {
  type AgentRunner,
  createAgentRunner,
  createModelProvider,
  type ModelProvider,
  readAgentInstructions,
} from '../agents/index.js';
import type { Config } from '../config/index.js';
import type { Logger } from '../logging/index.js';
import type { RunStore, SessionStore } from '../sessions/index.js';
import {
  type BuiltinToolpackName,
  type CoreMessage,
  type CoreSendResult,
  createBuiltinToolpackTools,
  createCoreTools,
} from '../toolpacks/index.js';
import { BUILTIN_TOOLS, createToolRegistry, type Tool, type ToolServices } from '../tools/index.js';
import type { GatewayExtensions } from './create-gateway.js';

/**
 * The agent side of the composition root: the tool registry (built-ins, then the extensions'
 * tools; a duplicate name stops the start), one provider per configured model, and the runner.
 * `services` may be filled in after this returns: tools only reach them while a turn runs.
 */
export async function buildAgentRunner(options: {
  config: Config;
  configPath: string;
  extensions: GatewayExtensions;
  sessions: SessionStore;
  runs: RunStore;
  services: ToolServices;
  /** The built-in toolpacks `tools.toolpacks` names; their tools are registered here. */
  builtinToolpacks: readonly BuiltinToolpackName[];
  /** Tools of the local toolpacks, by toolpack id (they run in runner processes). */
  toolpackTools: readonly { toolpackId: string; tools: readonly Tool[] }[];
  /** `messages.send` of the core toolpack. */
  sendMessage(message: CoreMessage): Promise<CoreSendResult>;
  stateDir: string;
  logger: Logger;
}): Promise<AgentRunner> {
  const { config, extensions, logger } = options;
  const registry = createToolRegistry();
  for (const tool of BUILTIN_TOOLS) registry.register(tool, 'builtin');
  for (const name of options.builtinToolpacks) {
    if (name === 'core') {
      for (const tool of createCoreTools({ send: options.sendMessage }))
        registry.register(tool, 'toolpack core');
      continue;
    }
    const toolpackOptions = { config, configPath: options.configPath, stateDir: options.stateDir };
    for (const tool of createBuiltinToolpackTools(name, toolpackOptions))
      registry.register(tool, `toolpack ${name}`);
  }
  for (const { toolpackId, tools } of options.toolpackTools) {
    for (const tool of tools) registry.register(tool, `toolpack ${toolpackId}`);
  }
  for (const tool of extensions.tools ?? []) registry.register(tool, 'gateway options');
  const providers = new Map<string, ModelProvider>();
  const createProvider = extensions.createModelProvider ?? createModelProvider;
  for (const [name, model] of Object.entries(config.models)) {
    providers.set(name, createProvider({ name, config: model, logger: logger.child({ model: name }) }));
  }
  return createAgentRunner({
    config,
    configPath: options.configPath,
    providers,
    registry,
    sessions: options.sessions,
    runs: options.runs,
    instructions: await readAgentInstructions(config, options.configPath),
    services: options.services,
  });
}
