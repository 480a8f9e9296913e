import type { ErrorObject } from 'ajv';

/** One schema failure: where (a JSON pointer, `` for the root) and what. `ConfigIssue` has this shape. */
export interface SchemaIssue {
  path: string;
  message: string;
}

/**
 * One ajv error as a JSON pointer and a one-line message, the words of every schema failure: config
 * issues, tool arguments, toolpack manifests and WebUI inputs.
 */
export function describeSchemaError(error: ErrorObject): SchemaIssue {
  const params = error.params as Record<string, unknown>;
  if (error.propertyName !== undefined) {
    return {
      path: `${error.instancePath}/${error.propertyName}`,
      message: `is not a valid key: ${error.message ?? 'fails propertyNames'}`,
    };
  }
  switch (error.keyword) {
    case 'additionalProperties':
      return { path: `${error.instancePath}/${String(params.additionalProperty)}`, message: 'unknown key' };
    case 'enum':
      return {
        path: error.instancePath,
        message: `must be one of: ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      };
    case 'required':
      return { path: `${error.instancePath}/${String(params.missingProperty)}`, message: 'is required' };
    case 'pattern':
      return { path: error.instancePath, message: `must match ${String(params.pattern)}` };
    default:
      return { path: error.instancePath, message: error.message ?? `fails ${error.keyword}` };
  }
}

/** The issues without repeats (ajv reports one failure once per branch it tried), first ones kept. */
export function dedupeIssues<T extends SchemaIssue>(issues: T[]): T[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.path}\n${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
