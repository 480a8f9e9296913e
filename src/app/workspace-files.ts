import { constants } from 'node:fs';
import { mkdir, open, readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../base/config/index.js';
import { SwitchboardError } from '../base/errors/index.js';
import type { DeliveryRoute, InboundMessage } from '../base/messages/index.js';
import { resolveAgentId } from '../engine/routing/index.js';
import {
  type BuiltinToolpackOptions,
  resolveAgentPath,
  safeSegment,
  uploadFolder,
  uploadsRoot,
} from '../extensions/toolpacks/index.js';
import type { InboundFileStore } from '../surfaces/channels/index.js';

export interface WorkspaceFilesOptions {
  config: Config;
  configPath: string;
  stateDir: string;
  /** The largest posted file saved (default 20 MB). */
  maxBytes?: number;
}

const DEFAULT_MAX_BYTES = 20 * 1_048_576;
/** How many names a file tries (`notes.txt`, `notes (2).txt`, …) before its save fails. */
const MAX_NAME_TRIES = 100;
/** Create a new file only: never an existing one, never through a symlink. */
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** The turn that reads a file: its agent, and its sender in its chat (whose `/uploads` it has). */
export interface FileReader {
  agentId: string;
  senderId: string;
  route: DeliveryRoute;
}

/**
 * The files posted in chats as the channels and the model context see them. A file posted with a
 * message is saved for the agent its session belongs to (the same binding the router resolves), in
 * the folder of its sender in its chat (`uploadFolder`: `<stateDir>/uploads/<agent>/<sender>/<chat>`,
 * outside every workspace, so no runner and no other person's turn reaches it), at
 * `/uploads/<platform>-<message id>/<name>` as that person's turns in that chat see it. A save
 * creates a new file (`O_EXCL | O_NOFOLLOW`): never through a symlink, never over another file; a
 * second file of one name gets `name (2).ext`. `read` opens a `/workspace/…` or `/uploads/…` path of
 * the reading turn, and nothing else.
 */
export function createWorkspaceFiles(options: WorkspaceFilesOptions) {
  const { config, configPath, stateDir } = options;
  const save: InboundFileStore['save'] = async (message: InboundMessage, file) => {
    const agentId = resolveAgentId(config.bindings, config.defaultAgent, message);
    const owner = {
      senderId: message.senderId,
      route: { channel: message.channel, chatType: message.chatType, chatId: message.chatId },
    };
    const folder = `${message.channel}-${safeName(message.messageId)}`;
    const directory = path.join(uploadFolder(stateDir, agentId, owner), folder);
    await mkdir(directory, { recursive: true, mode: 0o700 });
    await refuseLinkedFolder(uploadsRoot(stateDir), directory);
    const name = await writeNewFile(directory, safeName(file.name), file.bytes);
    return `/uploads/${folder}/${name}`;
  };
  const read = async (reader: FileReader, written: string): Promise<Uint8Array> =>
    readFile(await turnFile({ config, configPath, stateDir }, reader, written));
  return { save, read, maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES };
}

/** The folder's real path is the one built below the uploads root: no symlink on the way leads elsewhere. */
async function refuseLinkedFolder(root: string, directory: string): Promise<void> {
  const [realRoot, realDirectory] = await Promise.all([realpath(root), realpath(directory)]);
  if (realDirectory !== path.join(realRoot, path.relative(root, directory))) {
    throw new SwitchboardError(
      'GATEWAY_FILE_PATH',
      `${directory} leads elsewhere through a symlink; posted files are not saved through one (remove it)`,
    );
  }
}

/** `name`, else `name (2).ext`, `name (3).ext`…: the first that does not exist, created new. */
async function writeNewFile(directory: string, name: string, bytes: Uint8Array): Promise<string> {
  const { name: stem, ext } = path.parse(name);
  for (let attempt = 1; attempt <= MAX_NAME_TRIES; attempt += 1) {
    const candidate = attempt === 1 ? name : `${stem} (${attempt})${ext}`;
    const handle = await open(path.join(directory, candidate), CREATE_NEW, 0o600).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'EEXIST') return undefined;
        throw error;
      },
    );
    if (handle === undefined) continue;
    try {
      await handle.writeFile(bytes);
    } finally {
      await handle.close();
    }
    return candidate;
  }
  throw new SwitchboardError(
    'GATEWAY_FILE_PATH',
    `${path.join(directory, name)} and ${MAX_NAME_TRIES - 1} numbered names beside it exist; the file was not saved`,
  );
}

/**
 * The real host path of a file the turn may read for the model context: a `/workspace/…` file of
 * its agent or an `/uploads/…` file of its sender in its chat, checked as the file tools check theirs
 * (`resolveAgentPath`); anything else is refused with `GATEWAY_FILE_PATH`.
 */
async function turnFile(
  options: BuiltinToolpackOptions,
  reader: FileReader,
  written: string,
): Promise<string> {
  const resolved = await resolveAgentPath(options, reader.agentId, written, 'read', reader);
  if (!resolved.ok) throw new SwitchboardError('GATEWAY_FILE_PATH', resolved.error);
  const { virtual, host } = resolved.value;
  const under = (root: string) => virtual === root || virtual.startsWith(`${root}/`);
  if (!under('/workspace') && !under('/uploads'))
    throw new SwitchboardError('GATEWAY_FILE_PATH', `${written} is not a file of your workspace or uploads`);
  return host;
}

/**
 * The real host path of a file in the agent's own workspace (a relative path is under
 * `/workspace`), checked as the file tools check theirs (`resolveAgentPath`: no `..` above it, no
 * symlink out of it); anything else is refused with `GATEWAY_FILE_PATH`.
 */
export async function workspaceFile(
  options: BuiltinToolpackOptions,
  agentId: string,
  written: string,
): Promise<string> {
  const resolved = await resolveAgentPath(options, agentId, written, 'read');
  if (!resolved.ok) throw new SwitchboardError('GATEWAY_FILE_PATH', resolved.error);
  const { virtual, host } = resolved.value;
  if (virtual !== '/workspace' && !virtual.startsWith('/workspace/'))
    throw new SwitchboardError('GATEWAY_FILE_PATH', `${written} is not a file of your workspace`);
  return host;
}

/** A platform's file name as one path segment (`safeSegment`: no separators, no leading dots, …). */
export function safeName(name: string): string {
  return safeSegment(name);
}
