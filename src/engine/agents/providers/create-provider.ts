import type { ModelProvider, ProviderOptions } from './types.js';

/**
 * The provider for `models.<name>`, chosen by its `provider` (API family). Each SDK is imported
 * here, on first use: @anthropic-ai/sdk and openai take a quarter and an eighth of a second and
 * 10–25 MB each to load, so a gateway pays only for the API families its `models` name (and one
 * with no model, for neither). The gateway creates its providers at start, so a configured
 * family is loaded before the first message, not during it.
 */
export async function createModelProvider(options: ProviderOptions): Promise<ModelProvider> {
  switch (options.config.provider) {
    case 'openai':
      return (await import('./openai-provider.js')).createOpenAIProvider(options);
    case 'anthropic':
      return (await import('./anthropic-provider.js')).createAnthropicProvider(options);
  }
}
