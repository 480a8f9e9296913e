import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { SwitchboardError } from '../../base/errors/index.js';

interface ValidationDetail {
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/**
 * Error answers are JSON and name what is wrong: a malformed body names the field, a
 * stopping gateway is a 503, anything unexpected is logged with its stack and answered 500.
 */
export function handleHttpError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error.validation) {
    const detail = (error.validation[0] ?? {}) as ValidationDetail;
    const field = fieldOf(detail, error.validationContext ?? 'body');
    const problem =
      detail.params?.additionalProperty !== undefined
        ? 'is not a known field'
        : detail.params?.missingProperty !== undefined
          ? 'is required'
          : (detail.message ?? 'is invalid');
    return reply.code(400).send({ error: 'bad_request', field, message: `${field}: ${problem}` });
  }
  if (error instanceof SwitchboardError && error.code === 'GATEWAY_STATE') {
    return reply.code(503).send({ error: 'unavailable', message: error.message });
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return reply.code(error.statusCode).send({ error: 'bad_request', message: error.message });
  }
  request.log.error({ err: error }, 'request failed');
  return reply.code(500).send({ error: 'internal', message: 'internal error; see the gateway log' });
}

function fieldOf(detail: ValidationDetail, context: string): string {
  const pointer = detail.instancePath ?? '';
  const extra = detail.params?.additionalProperty ?? detail.params?.missingProperty;
  const parts = pointer.split('/').filter(Boolean);
  if (extra !== undefined) parts.push(String(extra));
  return parts.length > 0 ? parts.join('.') : context;
}
