import { createAnthropicProvider } from './anthropic-provider.js';
import { createOpenAIProvider } from './openai-provider.js';
import type { ModelProvider, ProviderOptions } from './types.js';

/** The provider for `models.<name>`, chosen by its `provider` (API family). */
export function createModelProvider(options: ProviderOptions): ModelProvider {
  switch (options.config.provider) {
    case 'openai':
      return createOpenAIProvider(options);
    case 'anthropic':
      return createAnthropicProvider(options);
  }
}
