import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createLogger } from '../src/base/logging/index.js';
import type { ToolContext } from '../src/engine/tools/index.js';

/**
 * Generated toolpacks for the toolpack bench: each a valid `suzumio.toolpack.json` with three tools
 * (small input schemas), one WebUI panel, a runner module whose `<id>.echo` and `<id>.lookup` answer
 * at once and whose `<id>.support` awaits `context.callSupport` once, and a controller module whose
 * `support` answers at once.
 */

export interface GeneratedToolpack {
  id: string;
  path: string;
}

export const toolpackId = (index: number) => `bench-${String(index).padStart(2, '0')}`;

function manifest(id: string) {
  return {
    id,
    runner: 'runner.mjs',
    controller: 'controller.mjs',
    webui: [{ id: 'stats', title: 'Bench statistics', description: 'Cached counts.', kind: 'panel' }],
    tools: [
      {
        name: `${id}.echo`,
        description: 'Return the text.',
        inputSchema: {
          type: 'object',
          properties: { text: { type: 'string', maxLength: 200 } },
          required: ['text'],
          additionalProperties: false,
        },
      },
      {
        name: `${id}.lookup`,
        description: 'Look a key up.',
        inputSchema: {
          type: 'object',
          properties: {
            key: { type: 'string', pattern: '^[a-z0-9-]+$' },
            limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
          },
          required: ['key'],
        },
      },
      {
        name: `${id}.support`,
        description: 'Ask the controller side.',
        inputSchema: {
          type: 'object',
          properties: {
            note: { type: 'string' },
            priority: { type: 'string', enum: ['P1', 'P2', 'P3'] },
            at: { type: 'string', format: 'date-time' },
          },
        },
      },
    ],
  };
}

const runnerModule = (id: string) => `export function createRunnerToolpack(context) {
  return {
    tools: {
      '${id}.echo': (input) => ({ output: input.text }),
      '${id}.lookup': (input) => ({ output: { key: input.key, found: false } }),
      '${id}.support': (input) => context.callSupport('${id}.support', input),
    },
  };
}
`;

const controllerModule = `export function createControllerToolpack() {
  return { support: async (tool) => ({ output: \`Handled \${tool}.\` }) };
}

export function createWebuiToolpack(context) {
  return { webui: { stats: async () => ({ output: JSON.stringify(context.store.projectStats()) }) } };
}
`;

/** Writes `count` toolpack directories under `root`; returns config entries (absolute paths). */
export async function writeToolpacks(root: string, count: number): Promise<GeneratedToolpack[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const id = toolpackId(index);
      const directory = path.join(root, id);
      await mkdir(directory, { recursive: true });
      await Promise.all([
        writeFile(
          path.join(directory, 'suzumio.toolpack.json'),
          `${JSON.stringify(manifest(id), null, 2)}\n`,
        ),
        writeFile(path.join(directory, 'runner.mjs'), runnerModule(id)),
        writeFile(path.join(directory, 'controller.mjs'), controllerModule),
      ]);
      return { id, path: directory };
    }),
  );
}

/** A tool context for calling a runtime tool's `execute` directly; these tools never use `services`. */
export function benchToolContext(runId: string, sessionKey: string): ToolContext {
  return {
    sessionKey,
    agentId: 'main',
    runId,
    senderId: 'webchat:bench',
    isOwner: false,
    route: { channel: 'webchat', chatType: 'direct', chatId: 'bench' },
    logger: createLogger({ level: 'silent' }).logger,
    signal: new AbortController().signal,
    depth: 0,
    services: {} as ToolContext['services'],
  };
}
