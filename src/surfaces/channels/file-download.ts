import { errorText } from '../../base/errors/index.js';
import type { InboundFile, InboundMessage } from '../../base/messages/index.js';
import type { InboundFileStore } from './types.js';

/** How long one download may take; a file still arriving after that is not saved. */
const DOWNLOAD_TIMEOUT_MS = 30_000;

/** A file a platform offers with a message, before it is downloaded. */
export interface OfferedFile {
  name: string;
  /** The platform's media type, when it gave one. */
  type: string | undefined;
  /** The size the platform says, when it says one. */
  size: number | undefined;
  /** Where to download it; undefined when the platform gave no address (a deleted file). */
  url: string | undefined;
  /** Sent with the download (Slack's bot token); never logged, never saved. */
  headers?: Record<string, string>;
}

/**
 * Downloads the offered files and saves them with `store`; a file that is too large, has no
 * address or is refused is returned with `error` and no `path`, never saved. Never throws: a
 * posted file must not cost the message. `refused` is what to say (to the model and the log) when
 * the platform answered a redirect, 401/403 or an HTML page for a file that is not HTML (the
 * sign-in page a missing scope gets).
 */
export async function saveOfferedFiles(
  message: InboundMessage,
  offered: readonly OfferedFile[],
  options: { store: InboundFileStore; refused: string },
): Promise<InboundFile[]> {
  const files: InboundFile[] = [];
  for (const file of offered) files.push(await saveOne(message, file, options));
  return files;
}

async function saveOne(
  message: InboundMessage,
  file: OfferedFile,
  { store, refused }: { store: InboundFileStore; refused: string },
): Promise<InboundFile> {
  const type = file.type || 'application/octet-stream';
  const described = { name: file.name, type, size: file.size ?? 0 };
  const limit = `larger than the ${megabytes(store.maxBytes)} limit for posted files`;
  if (file.url === undefined)
    return { ...described, error: 'the platform gave no address to download it from' };
  if ((file.size ?? 0) > store.maxBytes) return { ...described, error: limit };
  try {
    const response = await fetch(file.url, {
      headers: file.headers ?? {},
      redirect: 'manual',
      signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS),
    });
    const answered = response.headers.get('content-type') ?? '';
    const page = answered.startsWith('text/html') && !type.startsWith('text/html');
    if (response.status >= 300 || page) {
      await response.body?.cancel();
      return {
        ...described,
        error: response.status >= 400 && !page ? `${refused} (HTTP ${response.status})` : refused,
      };
    }
    const bytes = await readCapped(response, store.maxBytes);
    if (bytes === undefined) return { ...described, error: limit };
    const path = await store.save(message, { name: file.name, type, bytes });
    return { ...described, size: bytes.byteLength, path };
  } catch (error) {
    return { ...described, error: `the download failed: ${errorText(error)}` };
  }
}

/** The body, or undefined once it passes `maxBytes` (the rest is not read). */
async function readCapped(response: Response, maxBytes: number): Promise<Uint8Array | undefined> {
  if (response.body === null) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks);
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
}

const megabytes = (bytes: number) => `${Math.round((bytes / 1_048_576) * 10) / 10} MB`;
