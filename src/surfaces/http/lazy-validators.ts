import { createRequire } from 'node:module';

/** A route part's schema as fastify hands it to a validator compiler. */
export interface RouteSchema {
  schema: unknown;
  method: string;
  url: string;
  httpPart: string;
}

/** A compiled validator as fastify calls it: ajv's, with `errors` after a failure and `schemaEnv`. */
export type Validate = ((data: unknown, context?: unknown) => unknown) & {
  errors?: unknown;
  schemaEnv?: unknown;
};

/** What fastify's `schemaController.compilersFactory.buildValidator` is: shared schemas and ajv options in, a compiler out. */
export type ValidatorFactory = (
  externalSchemas: unknown,
  options: unknown,
) => (route: RouteSchema) => Validate;

/**
 * fastify's own validator factory (`@fastify/ajv-compiler`, the one it uses when given none),
 * loaded from fastify's dependencies when first called: the same ajv, options and formats as before.
 */
export function fastifyValidatorFactory(): ValidatorFactory {
  let factory: ValidatorFactory | undefined;
  return (externalSchemas, options) => {
    if (!factory) {
      const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
      const { AjvCompiler } = fromFastify('@fastify/ajv-compiler') as { AjvCompiler: () => ValidatorFactory };
      factory = AjvCompiler();
    }
    return factory(externalSchemas, options);
  };
}

/**
 * `factory` made lazy: fastify compiles every route's schemas when the server starts (an ajv
 * instance and ~20 schemas: tens of milliseconds of the start); here a route's validator is
 * compiled by its first request, and the ajv instance with the first of them. The validator
 * fastify calls is the compiled one behind a forwarder: the same answers, `errors` and
 * `schemaEnv` (fastify reads both from the function it was given).
 */
export function lazyValidators(factory: ValidatorFactory): ValidatorFactory {
  return (externalSchemas, options) => {
    let compiler: ((route: RouteSchema) => Validate) | undefined;
    return (route) => {
      let compiled: Validate | undefined;
      const validator = (): Validate => {
        compiler ??= factory(externalSchemas, options);
        compiled ??= compiler(route);
        return compiled;
      };
      const validate: Validate = (data, context) => {
        const inner = validator();
        const result = inner(data, context);
        validate.errors = inner.errors;
        return result;
      };
      Object.defineProperty(validate, 'schemaEnv', { get: () => validator().schemaEnv });
      return validate;
    };
  };
}
