import type { FastifyReply } from 'fastify';
import { STALE_HASH_ERROR } from '../../../base/config/index.js';

/**
 * The editor's refusals as HTTP answers: a stale hash is a 409 that says what happened and what to
 * do; an unknown change number a 404; anything else (validation, the start check, a protected
 * path) a 400 with the editor's message, which names the path, and that path as `field`.
 */
export function sendRefusal(reply: FastifyReply, error: string) {
  if (error === STALE_HASH_ERROR) {
    return reply.code(409).send({
      error: 'conflict',
      field: 'baseHash',
      message:
        'baseHash: the config file changed since this edit was made from it (another owner, the model or the shell edited it); nothing was written. Load the config again and redo the edit on the file as it is now.',
    });
  }
  if (error.startsWith('no config change'))
    return reply.code(404).send({ error: 'not_found', message: error });
  const field = fieldOf(error);
  return reply.code(400).send({ error: 'refused', message: error, ...(field ? { field } : {}) });
}

/** The first JSON pointer an editor message names (`/log/level: must be …`), as a dot path. */
function fieldOf(error: string): string | undefined {
  const pointer = /(?:^|\s)(\/[^\s:,;]+)/.exec(error)?.[1];
  if (!pointer) return undefined;
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .join('.');
}
