import { type Config, tokenCost } from '../../base/config/index.js';
import type { ModelProvider } from '../agents/index.js';
import type { Observation } from './observation.js';
import { inSpan } from './tracing.js';

/**
 * The provider with each call counted (outcome, latency), its tokens (reported or estimated) and their cost
 * (`tokenCost` at `models.<name>.price`) added up, and a `switchboard.model_call` span. The model
 * label is the provider's config name: one provider per configured model, so a failover chain
 * over these providers counts each model that was tried.
 */
export function observeModel(
  observation: Observation,
  config: Config,
  provider: ModelProvider,
): ModelProvider {
  const { instruments } = observation.metrics;
  const model = provider.name;
  const price = config.models[model]?.price;
  return {
    name: provider.name,
    description: provider.description,
    complete(request) {
      return inSpan(
        observation.tracer,
        'switchboard.model_call',
        { 'switchboard.model': model },
        async (span) => {
          const started = performance.now();
          try {
            const response = await provider.complete(request);
            instruments.modelCalls.inc({ model, outcome: 'ok' });
            const { usage } = response;
            if (usage) {
              instruments.tokens.inc({ model, direction: 'input' }, usage.inputTokens);
              instruments.tokens.inc({ model, direction: 'output' }, usage.outputTokens);
              if (usage.estimated) {
                instruments.estimatedTokens.inc({ model, direction: 'input' }, usage.inputTokens);
                instruments.estimatedTokens.inc({ model, direction: 'output' }, usage.outputTokens);
              }
              const cost = tokenCost(price, usage);
              if (cost > 0) instruments.cost.inc({ model }, cost);
              span.setAttributes({
                'gen_ai.usage.input_tokens': usage.inputTokens,
                'gen_ai.usage.output_tokens': usage.outputTokens,
                ...(usage.estimated && { 'switchboard.usage_estimated': true }),
              });
            }
            span.setAttribute('switchboard.outcome', 'ok');
            return response;
          } catch (error) {
            // An abort is the run's (a stop, a kill, a timeout), not the model's.
            const outcome = request.signal?.aborted ? 'aborted' : 'error';
            instruments.modelCalls.inc({ model, outcome });
            span.setAttribute('switchboard.outcome', outcome);
            throw error;
          } finally {
            instruments.modelCallDuration.observe({ model }, (performance.now() - started) / 1000);
          }
        },
      );
    },
  };
}
