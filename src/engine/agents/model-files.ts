import type { InboundFile } from '../../base/messages/index.js';
import type { TurnScope } from '../tools/index.js';
import type { ModelImage, ModelMessage } from './providers/index.js';

/** Image types every provider takes as image parts; other images are shown by path like any file. */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** Who reads: the turn's agent, and its sender in its chat (whose posted files `/uploads/…` names). */
export type FileReader = Pick<TurnScope, 'agentId' | 'senderId' | 'route'>;

/** Reads a file of the agent's workspace or of the turn's uploads by its path (`/uploads/…`, `/workspace/…`). */
export type ReadWorkspaceFile = (reader: FileReader, workspacePath: string) => Promise<Uint8Array>;

/**
 * The lines a user message's files add to its text: where each was saved (the agent reads a text
 * file there with its file tools), or why it was not.
 */
export function describeFiles(files: readonly InboundFile[]): string {
  return files
    .map((file) =>
      file.path === undefined
        ? `[file ${file.name} (${file.type}) was not saved: ${file.error ?? 'unknown reason'}]`
        : `[file ${file.name} (${file.type}, ${file.size} bytes) saved at ${file.path}]`,
    )
    .join('\n');
}

/** The saved images among a message's files, to be loaded before the model call. */
export function imagesOf(files: readonly InboundFile[]): ModelImage[] {
  return files.flatMap((file) =>
    file.path !== undefined && IMAGE_TYPES.has(file.type) ? [{ mediaType: file.type, path: file.path }] : [],
  );
}

/**
 * Fills in the bytes of the messages' images for a model that takes images; for one that does
 * not (or without a reader), drops them: the text still names their paths. An image that cannot
 * be read any more (deleted, or posted by someone else than the turn's sender, or in another chat:
 * the turn's `/uploads` is its sender's in its chat) is dropped too.
 */
export async function loadImages(
  messages: ModelMessage[],
  options: { reader: FileReader; takesImages: boolean; read: ReadWorkspaceFile | undefined },
): Promise<ModelMessage[]> {
  const { read } = options;
  return Promise.all(
    messages.map(async (message) => {
      if (message.role !== 'user' || message.images === undefined) return message;
      const { images, ...rest } = message;
      if (!options.takesImages || read === undefined) return rest;
      const loaded = await Promise.all(
        images.map(async (image) => {
          try {
            const bytes = await read(options.reader, image.path);
            return [{ ...image, data: Buffer.from(bytes).toString('base64') }];
          } catch {
            return [];
          }
        }),
      );
      return { ...rest, images: loaded.flat() };
    }),
  );
}
