import { mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isInside } from '../module-path.js';
import type { LoadedToolpack } from '../types.js';
import type { HostMessage } from './protocol.js';
import type { RunnerHostOptions } from './types.js';

/** Plain ESM next to this file in `src` and in `dist` (the build copies it). */
const BOOTSTRAP = fileURLToPath(new URL('./runner-process.mjs', import.meta.url));

export type RunnerToolpack = LoadedToolpack & { runnerModule: string };

/** What a runner process of one agent is started with: the real paths it may read and write, its `init`. */
export interface RunnerLaunch {
  bootstrap: string;
  workspace: string;
  read: string[];
  write: string[];
  /** Folders the sandbox hides inside the granted ones. */
  hidden: string[];
  init: Extract<HostMessage, { type: 'init' }>;
}

/**
 * The launch of one agent's runner: its workspace and artifacts directory made, and every grant a
 * real path (Node checks the resolved path of each access against them).
 */
export async function prepareLaunch(
  options: RunnerHostOptions,
  toolpacks: readonly RunnerToolpack[],
): Promise<RunnerLaunch> {
  await Promise.all([
    mkdir(options.workspace, { recursive: true }),
    mkdir(options.artifactsDir, { recursive: true }),
  ]);
  const [workspace, artifacts, bootstrap] = await Promise.all([
    realpath(path.resolve(options.workspace)),
    realpath(path.resolve(options.artifactsDir)),
    realpath(BOOTSTRAP),
  ]);
  const read = [bootstrap, ...toolpacks.map((toolpack) => toolpack.directory), workspace, artifacts];
  const write = [workspace, artifacts];
  const hidden = await hiddenInside([...read, ...write], options.hidden ?? []);
  const init = {
    type: 'init' as const,
    agentId: options.agentId,
    project: options.project,
    workspace,
    toolpacks: toolpacks.map((toolpack) => ({
      id: toolpack.id,
      runnerModule: toolpack.runnerModule,
      tools: toolpack.tools.map((tool) => tool.name),
    })),
  };
  return { bootstrap, workspace, read, write, hidden, init };
}

/** The real paths of the `hidden` folders that exist inside one of the `granted` paths. */
async function hiddenInside(granted: readonly string[], hidden: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const entry of hidden) {
    const real = await realpath(entry).catch(() => undefined);
    if (real !== undefined && granted.some((grant) => isInside(grant, real))) found.push(real);
  }
  return found;
}
