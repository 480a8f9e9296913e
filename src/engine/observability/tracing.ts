import { type Attributes, type Span, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';

/** The instrumentation scope every span of the gateway is made under. */
export const TRACER_NAME = 'switchboard';

/**
 * The gateway's tracer, from whatever tracer provider is registered with `@opentelemetry/api`:
 * none registered (the default), every span is a no-op. An operator registers an SDK before the
 * gateway starts (`node --import ./otel.mjs dist/main.js start`, see docs/operations.md, "Tracing").
 */
export function createTracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}

/**
 * Runs `work` in a new active span (so the spans it starts are its children) and ends the span
 * when it settles. A throw marks the span as an error with the error's class name only: an error
 * text may quote a secret or an address, and spans leave the process.
 */
export async function inSpan<T>(
  tracer: Tracer,
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('error.type', error instanceof Error ? error.name : typeof error);
      throw error;
    } finally {
      span.end();
    }
  });
}
