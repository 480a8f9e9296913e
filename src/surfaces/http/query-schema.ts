/**
 * The querystring schema of a route that takes no query: any key is a 400 naming it (ajv's
 * `additionalProperties`), so a mistyped filter is refused rather than silently ignored.
 */
export const NO_QUERY = { type: 'object', properties: {}, additionalProperties: false } as const;
