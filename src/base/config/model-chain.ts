import type { AgentConfig, Config } from './schema/schema.js';

/** The models an agent's turn may use, in order: the first answers, the rest are its fallbacks. */
export function modelChain(config: Pick<Config, 'models'>, model: AgentConfig['model']): string[] {
  if (model === undefined) return [];
  if (Array.isArray(model)) return [...model];
  return [...new Set([model, ...(config.models[model]?.fallbacks ?? [])])];
}

/** The model that answers first (the one a run is recorded under), or undefined without one. */
export function primaryModel(model: AgentConfig['model']): string | undefined {
  return Array.isArray(model) ? model[0] : model;
}

/** The model names an agent's `model` writes, for messages: `a`, or `a → b → c`. */
export function modelChainText(config: Pick<Config, 'models'>, model: AgentConfig['model']): string {
  return modelChain(config, model).join(' → ');
}
