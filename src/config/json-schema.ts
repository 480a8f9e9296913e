import { ConfigSchema } from './schema.js';

/** The config schema as the JSON text committed in `config/gateway.schema.json`. */
export function renderConfigJsonSchema(): string {
  const document = { $schema: 'http://json-schema.org/draft-07/schema#', ...ConfigSchema };
  return `${JSON.stringify(document, null, 2)}\n`;
}
