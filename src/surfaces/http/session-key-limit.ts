import { MAX_SESSION_KEY_LENGTH } from '../../records/sessions/index.js';

/**
 * fastify's `maxParamLength` (default 100, answered 414 beyond): a URL parameter is measured as
 * sent, so a key whose every character is percent-encoded (`%3A` for `:`) must still fit.
 */
export const MAX_PARAM_LENGTH = 3 * MAX_SESSION_KEY_LENGTH;
