import type { ModelConfig } from '../../../base/config/index.js';
import { errorText, fail, ok, type Result } from '../../../base/errors/index.js';
import { createLogger } from '../../../base/logging/index.js';
import { createModelProvider } from './create-provider.js';

/** How long a probe waits for the model's answer. */
export const PROBE_TIMEOUT_MS = 30_000;

/**
 * One small call to a model as the gateway would make it (same provider, address and key), with
 * no retry: the answer's first words when the model answers, else why not (a refused key, an
 * unknown model, an address that does not answer), for `switchboard setup` to show before it
 * writes anything.
 */
export async function probeModel(options: {
  name: string;
  config: ModelConfig;
  timeoutMs?: number;
}): Promise<Result<string, string>> {
  const { logger } = createLogger({ level: 'silent' });
  try {
    const provider = await createModelProvider({ name: options.name, config: options.config, logger });
    const response = await provider.complete({
      system: 'You are being tested. Answer with one short word.',
      messages: [{ role: 'user', content: 'Say OK.' }],
      tools: [],
      signal: AbortSignal.timeout(options.timeoutMs ?? PROBE_TIMEOUT_MS),
      maxRetries: 0,
    });
    const words = response.text.trim().split(/\s+/).slice(0, 8).join(' ');
    return ok(`${provider.description} answered${words ? `: ${JSON.stringify(words)}` : ' (no text)'}`);
  } catch (error) {
    return fail(errorText(error));
  }
}
