import type { ModelConfig } from './schema/schema.js';

/**
 * What a call's tokens cost at `models.<name>.price` (per million tokens), or 0 without a price.
 * The one place cost is computed: `/usage`, budgets and `/metrics` agree to the last digit.
 */
export function tokenCost(
  price: ModelConfig['price'],
  usage: { inputTokens: number; outputTokens: number },
): number {
  if (price === undefined) return 0;
  return (
    (usage.inputTokens * price.inputPerMillion + usage.outputTokens * price.outputPerMillion) / 1_000_000
  );
}
