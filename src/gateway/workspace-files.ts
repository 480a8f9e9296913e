import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { InboundFileStore } from '../channels/index.js';
import type { Config } from '../config/index.js';
import { SwitchboardError } from '../errors/index.js';
import type { InboundMessage } from '../messages/index.js';
import { resolveAgentId } from '../routing/index.js';
import { type BuiltinToolpackOptions, resolveAgentPath, workspaceFor } from '../toolpacks/index.js';

/** Where files posted in chats are saved, inside the agent's workspace. */
const INBOX = 'inbox';

export interface WorkspaceFilesOptions {
  config: Config;
  configPath: string;
  stateDir: string;
  /** The largest posted file saved (default 20 MB). */
  maxBytes?: number;
}

const DEFAULT_MAX_BYTES = 20 * 1_048_576;

/**
 * The agents' workspaces as the channels and the model context see them: a file posted with a
 * message is saved in the workspace of the agent its session belongs to (the same binding the
 * router resolves), at `/workspace/inbox/<platform>-<message id>/<name>`; `read` opens a
 * `/workspace/…` path of an agent's workspace, and nothing outside it.
 */
export function createWorkspaceFiles(options: WorkspaceFilesOptions) {
  const { config, configPath, stateDir } = options;
  const workspace = (agentId: string) => workspaceFor(config, configPath, stateDir, agentId);
  const save: InboundFileStore['save'] = async (message: InboundMessage, file) => {
    const agentId = resolveAgentId(config.bindings, config.defaultAgent, message);
    const folder = `${message.channel}-${safeName(message.messageId)}`;
    const name = safeName(file.name);
    const directory = path.join(workspace(agentId), INBOX, folder);
    await mkdir(directory, { recursive: true });
    await writeFile(path.join(directory, name), file.bytes, { mode: 0o600 });
    return `/workspace/${INBOX}/${folder}/${name}`;
  };
  const read = async (agentId: string, workspacePath: string): Promise<Uint8Array> =>
    readFile(await workspaceFile({ config, configPath, stateDir }, agentId, workspacePath));
  return { save, read, maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES };
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

/**
 * A platform's file name as one path segment: no separators, no leading dots, no control
 * characters, at most 100 characters; empty becomes `file`.
 */
export function safeName(name: string): string {
  const cleaned = name
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
    .replace(/[/\\\u0000-\u001f\u007f]/g, '_')
    .replace(/^\.+/, '')
    .slice(-100);
  return cleaned === '' ? 'file' : cleaned;
}
