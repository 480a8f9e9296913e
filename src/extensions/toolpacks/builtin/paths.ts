import { lstat, mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../../base/config/index.js';
import { fail, ok, type Result } from '../../../base/errors/index.js';
import type { TurnScope } from '../../../engine/tools/index.js';
import { isInside } from '../module-path.js';
import type { checkHost } from './web-address.js';

/** What the built-in toolpacks are built from: the loaded config, its file and the absolute state dir. */
export interface BuiltinToolpackOptions {
  config: Config;
  /** The config file; relative `workspace` and mount paths are taken from its directory. */
  configPath: string;
  stateDir: string;
  /**
   * How `web.fetch` decides whether a host may be reached and which address to connect to
   * (default: `checkHost` in web-address.ts). Tests stand in a public host with it.
   */
  checkHost?: typeof checkHost;
}

export type PathAccess = 'read' | 'write';

/** A virtual path checked for one access; `host` is the real path to open (symlinks already resolved). */
export type AgentPath = Result<{ virtual: string; host: string }>;

const ROOTS = 'use /workspace/…, /uploads/…, /artifacts/<agentId>/… or /mnt/<name>/…';

/** Whose files `/uploads` is: the person who started the turn, in the chat the turn answers. */
export type UploadOwner = Pick<TurnScope, 'senderId' | 'route'>;

/** `<stateDir>/uploads`: outside every workspace, so no runner (granted its workspace) ever sees it. */
export function uploadsRoot(stateDir: string): string {
  return path.resolve(stateDir, 'uploads');
}

/**
 * One folder name: no separators, no leading dots, no control characters, at most 100 characters;
 * empty becomes `file`.
 */
export function safeSegment(name: string): string {
  const cleaned = name
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
    .replace(/[/\\\u0000-\u001f\u007f]/g, '_')
    .replace(/^\.+/, '')
    .slice(-100);
  return cleaned === '' ? 'file' : cleaned;
}

/**
 * The host folder of the files one person posted in one chat to one agent:
 * `<stateDir>/uploads/<agentId>/<senderId>/<channel>-<direct|chat id>`. A turn's `/uploads` is the folder
 * of its sender in its chat: another person's turn, or the same person's turn in another chat (a
 * channel others read, for a file sent in a DM), names a different folder.
 */
export function uploadFolder(stateDir: string, agentId: string, owner: UploadOwner): string {
  const { route } = owner;
  const chat = route.chatType === 'direct' ? 'direct' : safeSegment(route.chatId);
  return path.join(
    uploadsRoot(stateDir),
    safeSegment(agentId),
    safeSegment(owner.senderId),
    `${safeSegment(route.channel)}-${chat}`,
  );
}

/** `agents.<id>.workspace` (relative to the config file's directory), else `<stateDir>/workspaces/<id>`. */
export function workspaceFor(config: Config, configPath: string, stateDir: string, agentId: string): string {
  const configured = config.agents[agentId]?.workspace;
  if (configured !== undefined) return path.resolve(path.dirname(configPath), configured);
  return path.resolve(stateDir, 'workspaces', agentId);
}

/** `<stateDir>/artifacts`: one directory per agent below it. */
export function artifactsRoot(stateDir: string): string {
  return path.resolve(stateDir, 'artifacts');
}

/** The agent's workspace, created on first use. */
export async function ensureWorkspace(options: BuiltinToolpackOptions, agentId: string): Promise<string> {
  const workspace = workspaceFor(options.config, options.configPath, options.stateDir, agentId);
  await mkdir(workspace, { recursive: true });
  return workspace;
}

/**
 * Maps a virtual path to a host path for `access`, or refuses. Relative paths are under
 * `/workspace`. Roots: `/workspace` (read, write; created on first use), `/uploads` (read only: the
 * files the turn's sender posted in the turn's chat, `uploadFolder`; only with `uploads`), `/artifacts`
 * and `/artifacts/<agentId>` (read; write only the caller's own), `/mnt/<name>` (read only).
 * `..` may not climb above the root, and the real path of the deepest existing ancestor (every
 * symlink followed) must stay inside the root's real path. The returned `host` is that real path,
 * so the file opened is the one checked (a symlink swapped in after the check is a race we accept).
 */
export async function resolveAgentPath(
  options: BuiltinToolpackOptions,
  agentId: string,
  written: string,
  access: PathAccess,
  uploads?: UploadOwner,
): Promise<AgentPath> {
  const absolute = written.startsWith('/') ? written : `/workspace/${written}`;
  const parts = absolute.split('/').filter((part) => part !== '' && part !== '.');
  const refuse = (why: string): AgentPath => fail(`path "${written}" ${why}`);
  if (written.includes('\0')) return refuse('contains a NUL character');
  const top = parts[0];
  let rootVirtual: string;
  let rootHost: string;
  let rest: string[];
  let writable: boolean;
  if (top === 'workspace') {
    rootVirtual = '/workspace';
    rootHost = await ensureWorkspace(options, agentId);
    rest = parts.slice(1);
    writable = true;
  } else if (top === 'uploads') {
    if (uploads === undefined)
      return refuse('names uploaded files, and this call has no turn whose files they are');
    rootVirtual = '/uploads';
    rootHost = uploadFolder(options.stateDir, agentId, uploads);
    rest = parts.slice(1);
    writable = false;
  } else if (top === 'artifacts') {
    const owner = parts[1];
    if (owner === undefined || owner === '..') {
      rootVirtual = '/artifacts';
      rootHost = artifactsRoot(options.stateDir);
      rest = parts.slice(1);
      writable = false;
    } else {
      rootVirtual = `/artifacts/${owner}`;
      rootHost = path.join(artifactsRoot(options.stateDir), owner);
      rest = parts.slice(2);
      writable = owner === agentId;
      if (writable && access === 'write') await mkdir(rootHost, { recursive: true });
    }
  } else if (top === 'mnt') {
    const names = options.config.tools.mounts.map((mount) => mount.name);
    const mount = options.config.tools.mounts.find((entry) => entry.name === parts[1]);
    if (!mount) {
      const known = names.length > 0 ? names.map((name) => `/mnt/${name}`).join(', ') : 'none configured';
      return refuse(`names no configured mount (mounts: ${known})`);
    }
    rootVirtual = `/mnt/${mount.name}`;
    rootHost = path.resolve(path.dirname(options.configPath), mount.path);
    rest = parts.slice(2);
    writable = false;
  } else {
    return refuse(`is outside the files you can reach: ${ROOTS}`);
  }

  const relative: string[] = [];
  for (const part of rest) {
    if (part !== '..') relative.push(part);
    else if (relative.pop() === undefined) return refuse(`leaves ${rootVirtual} through ".."`);
  }
  const virtual = [rootVirtual, ...relative].join('/');
  if (access === 'write' && !writable) {
    const own = `/artifacts/${agentId}`;
    return refuse(`is read-only: write to /workspace/… or your own ${own}/…`);
  }

  // The root may not exist yet (another agent's artifacts, say): it gets the same treatment.
  const realRoot = await realTarget(rootHost);
  const real = await realTarget(path.join(rootHost, ...relative));
  if (realRoot === undefined || real === undefined) {
    return refuse('passes through a symlink that is broken or loops');
  }
  if (!isInside(realRoot, real)) return refuse(`leads outside ${rootVirtual} through a symlink`);
  return ok({ virtual, host: real });
}

/**
 * The real path of the deepest existing ancestor joined with the parts below it that do not exist.
 * `undefined` for a link that exists but cannot be resolved (its target is missing, or it loops):
 * writing through a dangling link would create its target wherever it points.
 */
async function realTarget(host: string): Promise<string | undefined> {
  const missing: string[] = [];
  let current = host;
  for (;;) {
    try {
      return path.join(await realpath(current), ...missing);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') return undefined;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    }
    const danglingLink = await lstat(current).then(
      (stats) => stats.isSymbolicLink(),
      () => false,
    );
    if (danglingLink) return undefined;
    const parent = path.dirname(current);
    if (parent === current) return host;
    missing.unshift(path.basename(current));
    current = parent;
  }
}

const FS_REASONS: Record<string, string> = {
  ENOENT: 'it does not exist',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOSPC: 'the disk is full',
  EROFS: 'the file system is read-only',
};

/**
 * An fs error as an expected failure naming the virtual path (Node's messages name host paths,
 * which the model has no use for). Errors without a code are bugs and are thrown again.
 */
export function fileFailure(action: string, virtual: string, error: unknown): { ok: false; reason: string } {
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code !== 'string') throw error;
  return { ok: false, reason: `cannot ${action} ${virtual}: ${FS_REASONS[code] ?? code}` };
}
