import type { ErrorObject } from 'ajv';
import { SwitchboardError } from '../../base/errors/index.js';

/**
 * How a controller handler says "the caller's input is wrong" rather than "I failed": it throws
 * an error with `statusCode` (or `status`) from 400 to 499, the convention of Node's HTTP
 * libraries, or lets ajv's own `ValidationError` (thrown by a `$async` schema) escape. The HTTP
 * API answers such a rejection with that status (400 for ajv) and the gateway logs it at info;
 * anything else is the controller's failure (500, logged with its stack).
 */
export class ToolpackInputError extends SwitchboardError {
  readonly statusCode: number;
  /** JSON pointer into the input, when the controller named one (ajv does). */
  readonly path: string | undefined;

  constructor(message: string, options: { statusCode: number; path?: string | undefined; cause?: unknown }) {
    super('TOOLPACK_INPUT_REFUSED', message, { cause: options.cause });
    this.name = 'ToolpackInputError';
    this.statusCode = options.statusCode;
    this.path = options.path;
  }
}

/** The input refusal `error` stands for, worded for the entry's caller, or undefined when it is a failure. */
export function inputRefusal(error: unknown, label: string): ToolpackInputError | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const fields = error as { statusCode?: unknown; status?: unknown; message?: unknown };
  const ajvErrors = ajvValidationErrors(error);
  if (ajvErrors !== undefined) {
    const [first] = ajvErrors;
    const path = first?.instancePath || '/';
    const message = `${label} refused the input: ${path} ${first?.message ?? 'is invalid'}`;
    return new ToolpackInputError(message, { statusCode: 400, path, cause: error });
  }
  const status = typeof fields.statusCode === 'number' ? fields.statusCode : fields.status;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 499)
    return undefined;
  const reason = typeof fields.message === 'string' ? fields.message : String(error);
  return new ToolpackInputError(`${label} refused the input: ${reason}`, {
    statusCode: status,
    cause: error,
  });
}

/** ajv's `ValidationError` from any copy of ajv: `{ ajv: true, validation: true, errors: [...] }`. */
function ajvValidationErrors(error: object): Partial<ErrorObject>[] | undefined {
  const fields = error as { ajv?: unknown; validation?: unknown; errors?: unknown };
  if (fields.ajv !== true || fields.validation !== true || !Array.isArray(fields.errors)) return undefined;
  return fields.errors as Partial<ErrorObject>[];
}
