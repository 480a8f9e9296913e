import type { FastifyInstance } from 'fastify';

/** What the file route needs of the web chat: a kept file's bytes by id and name. */
export interface WebchatFilesPort {
  /** Undefined for an unknown id or name (and for any name that is not a plain file name). */
  readFile(id: string, name: string): Promise<Uint8Array | undefined>;
}

/**
 * `GET /api/webchat/files/:id/:name`: a file sent to a web chat (`chat.attach`), as a download.
 * Authenticated like every web chat route (the page's cookie or the bearer token); the adapter
 * only reads `<id>/<name>` of its own folder, for a random hex id and a plain name.
 */
export function registerWebchatFileRoute(app: FastifyInstance, webchat: WebchatFilesPort): void {
  app.get<{ Params: { id: string; name: string } }>(
    '/api/webchat/files/:id/:name',
    async (request, reply) => {
      const { id, name } = request.params;
      const bytes = await webchat.readFile(id, name);
      if (bytes === undefined)
        return reply.code(404).send({ error: 'not_found', message: `no web chat file ${id}/${name}` });
      return reply
        .header('content-type', 'application/octet-stream')
        .header('content-disposition', `attachment; filename="${name}"`)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'private, no-store')
        .send(Buffer.from(bytes));
    },
  );
}
