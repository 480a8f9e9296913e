import { ConfigSchema } from './schema.js';

/**
 * The config schema as the JSON text committed in `config/gateway.schema.json`, for editors.
 * A key with a default is not `required` there: the loader fills it in before validating.
 */
export function renderConfigJsonSchema(): string {
  const document = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    ...(dropDefaultedRequired(ConfigSchema) as object),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

function dropDefaultedRequired(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(dropDefaultedRequired);
  if (node === null || typeof node !== 'object') return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) copy[key] = dropDefaultedRequired(value);
  const properties = copy.properties as Record<string, { default?: unknown }> | undefined;
  if (Array.isArray(copy.required) && properties) {
    const required = (copy.required as string[]).filter((name) => properties[name]?.default === undefined);
    if (required.length > 0) copy.required = required;
    else delete copy.required;
  }
  return copy;
}
