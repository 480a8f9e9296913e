import type { ModelConfig } from '../base/config/index.js';
import { fail, ok, type Result } from '../base/errors/index.js';
import type { SetupRefusal } from './setup-refusal.js';

/** The models the first run offers: a provider, a default model id and the variable its key goes in. */
export type ModelKind = 'openai' | 'anthropic' | 'compatible';

export interface ModelKindInfo {
  label: string;
  provider: 'openai' | 'anthropic';
  /** The model id offered by default. */
  model: string;
  /** The env file variable the key is written to; the config names it as `${NAME}`. */
  variable: string;
  /** The address offered by default (an OpenAI-compatible server's). */
  baseUrl?: string;
}

export const MODEL_KINDS: Readonly<Record<ModelKind, ModelKindInfo>> = {
  openai: { label: 'OpenAI', provider: 'openai', model: 'gpt-4o-mini', variable: 'OPENAI_API_KEY' },
  anthropic: {
    label: 'Anthropic',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    variable: 'ANTHROPIC_API_KEY',
  },
  compatible: {
    label: 'An OpenAI-compatible server (Ollama, vLLM, LM Studio, OpenRouter)',
    provider: 'openai',
    model: 'llama3.1',
    variable: 'MODEL_API_KEY',
    baseUrl: 'http://127.0.0.1:11434/v1',
  },
};

/** What a person answered for the model; an empty key keeps the variable already set. */
export interface ModelAnswer {
  kind: ModelKind;
  model: string;
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
}

/** A model that answered: its config entry (the key as `${NAME}`), the secret, what it said. */
export interface ProvedModel {
  text: string;
  entry: { provider: 'openai' | 'anthropic'; model: string; baseUrl?: string; apiKey?: string };
  secret?: { variable: string; value: string };
}

/**
 * Proves a model by one short call, as the gateway would make it (same provider, address and
 * key), before anything is written. The key is the answer's, else the one the environment (the
 * env file) has under the kind's variable. A refusal names the field to fix (`model.apiKey` for a
 * refused key) and never quotes the key.
 */
export async function proveModel(
  answer: ModelAnswer,
  environment: NodeJS.ProcessEnv,
): Promise<Result<ProvedModel, SetupRefusal>> {
  const kind = MODEL_KINDS[answer.kind];
  if (!kind)
    return fail({
      field: 'model.kind',
      message: `the model must be openai, anthropic or compatible, not ${JSON.stringify(answer.kind)}`,
    });
  const baseUrl = answer.baseUrl || (answer.kind === 'compatible' ? kind.baseUrl : undefined);
  if (baseUrl !== undefined && !/^https?:\/\/\S+$/.test(baseUrl))
    return fail({
      field: 'model.baseUrl',
      message: `the base URL must be an http(s):// address, not ${JSON.stringify(baseUrl)}`,
    });
  const model = answer.model.trim() || kind.model;
  const key = answer.apiKey || environment[kind.variable] || '';
  if (answer.kind !== 'compatible' && key === '')
    return fail({ field: 'model.apiKey', message: `the ${kind.label} API key is needed` });
  const config = { provider: kind.provider, model, ...(baseUrl ? { baseUrl } : {}) };
  const { probeModel } = await import('../engine/agents/index.js');
  const proved = await probeModel({
    name: 'default',
    config: { ...config, apiKey: key || undefined } as ModelConfig,
  });
  if (proved.ok) {
    return ok({
      text: proved.value,
      entry: { ...config, ...(key ? { apiKey: `\${${kind.variable}}` } : {}) },
      ...(key ? { secret: { variable: kind.variable, value: key } } : {}),
    });
  }
  const error = key ? proved.error.replaceAll(key, `[${kind.variable}]`) : proved.error;
  return fail({ field: modelFieldOf(error, answer.kind), message: `the model did not answer: ${error}` });
}

/** Which answer a failed call points at: a refused key, an unknown model, else the address. */
function modelFieldOf(error: string, kind: ModelKind): string {
  if (/\b(401|403)\b|api[ _-]?key|unauthori[sz]ed|authentication|permission/i.test(error))
    return 'model.apiKey';
  if (/\b404\b|model.*(not found|does not exist)|unknown model/i.test(error)) return 'model.model';
  return kind === 'compatible' ? 'model.baseUrl' : 'model.apiKey';
}

/** A configured model in a line: `default: openai gpt-4o-mini at http://…`. */
export function describeModel(name: string, model: Record<string, unknown> | undefined): string {
  return `${name}: ${String(model?.provider)} ${String(model?.model)}${model?.baseUrl ? ` at ${String(model.baseUrl)}` : ''}`;
}
