import { type SchemaOptions, type TSchema, type TString, type TUnsafe, Type } from '@sinclair/typebox';

/** The schema keyword that marks a value as secret: redacted in logs, `config.get` and every output. */
export const SECRET_KEYWORD = 'x-secret';

/**
 * The schema keyword that marks what the model-facing `gateway` tool may not change (owners can,
 * with `/config` or the file): `true` for the value, `"presence"` for adding or removing the key,
 * `"added-code"` for an array of toolpacks that may not gain local code or `shell`. Secrets and
 * `format: uri` fields are protected without it (see tool-guard.ts).
 */
export const TOOL_PROTECTED_KEYWORD = 'x-tool-protected';

/**
 * The schema keyword that decides what the model-facing `gateway` tool may change (an allow
 * list, see agent-editable.ts): `true` on a node the model may change, `false` on one it may not;
 * an unmarked node takes the decision of the object above it. Every path has one (a unit test).
 */
export const AGENT_EDITABLE_KEYWORD = 'x-agent-editable';

/** An agent id (a key of `agents`). */
/** A node of the config's JSON Schema as the schema walkers read it (the guards, the lookup). */
export interface SchemaNode {
  [keyword: string]: unknown;
  properties?: Record<string, SchemaNode>;
  patternProperties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
}

export const AGENT_ID_PATTERN = '^[a-z0-9][a-z0-9_-]{0,63}$';

/** A secret string (token, key, signing secret). */
export function Secret(options: SchemaOptions & { description: string }): TString {
  return Type.String({ ...options, [SECRET_KEYWORD]: true });
}

/** A string enum as a plain `enum` keyword, so that validation errors stay one line. */
export function StringEnum<const Values extends readonly string[]>(
  values: Values,
  options: SchemaOptions & { description: string },
): TUnsafe<Values[number]> {
  return Type.Unsafe<Values[number]>({ ...options, type: 'string', enum: [...values] });
}

/** An object that rejects unknown keys. */
export function Strict<Properties extends Parameters<typeof Type.Object>[0]>(
  properties: Properties,
  options: SchemaOptions = {},
) {
  return Type.Object(properties, { additionalProperties: false, ...options });
}

export type { TSchema };
