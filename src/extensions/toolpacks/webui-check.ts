import { errorText } from '../../base/errors/index.js';
import type { ControllerHost } from './controller/index.js';
import type { LoadedToolpack, LoadedWebuiEntry, ToolpackProblem } from './types.js';

/** A WebUI entry with the id of the toolpack that declares it. */
export type ListedWebuiEntry = LoadedWebuiEntry & { toolpack: string };

/** Where entry `index` sits in its manifest; also how `listWebuiEntries` matches problems to entries. */
function entryPointer(index: number): string {
  return `/webui/${index}`;
}

/**
 * "An entry without a handler is a validation error." Asks each toolpack's controller whether
 * `webui(entryId)` finds a handler and reports every declared entry that has none as a
 * `webui-handler-missing` problem on the manifest, pointing at the entry (`/webui/<index>`).
 *
 * It imports every controller module that declares entries and runs its `createWebuiToolpack` once
 * per entry, so it belongs at start, after the controller hosts are made (loading the manifests never
 * runs toolpack code). A module that fails to load, or a WebUI factory that throws, leaves each of its
 * entries without a handler: each is reported with that reason (the host has logged the stack). A
 * toolpack with no controller host is reported the same way. Never rejects.
 */
export async function checkWebuiHandlers(
  toolpacks: readonly LoadedToolpack[],
  controllers: ReadonlyMap<string, ControllerHost>,
): Promise<ToolpackProblem[]> {
  const perToolpack = await Promise.all(
    toolpacks.map(async (toolpack) => {
      const problems: ToolpackProblem[] = [];
      const controller = controllers.get(toolpack.id);
      for (const [index, entry] of toolpack.webui.entries()) {
        const missing = controller
          ? await handlerMissing(controller, toolpack, entry.id)
          : `the ${toolpack.id} toolpack has no controller host`;
        if (missing === undefined) continue;
        problems.push({
          file: toolpack.manifestFile,
          rule: 'webui-handler-missing',
          message: `WebUI entry "${entry.id}" has no handler: ${missing}`,
          pointer: entryPointer(index),
        });
      }
      return problems;
    }),
  );
  return perToolpack.flat();
}

/** Why `entryId` has no handler, or undefined when it has one. */
async function handlerMissing(
  controller: ControllerHost,
  toolpack: LoadedToolpack,
  entryId: string,
): Promise<string | undefined> {
  try {
    if (await controller.hasWebuiHandler(entryId)) return undefined;
    return (
      `${toolpack.controllerModule} exports no createWebuiToolpack, webui map or default map ` +
      `with a "${entryId}" handler`
    );
  } catch (error) {
    return errorText(error);
  }
}

/**
 * The WebUI entries of `toolpacks` in config and manifest order, leaving out those that `problems`
 * (what `checkWebuiHandlers` returned, possibly among others) reports as having no handler: the Tools
 * page and the HTTP API list only entries that can run.
 */
export function listWebuiEntries(
  toolpacks: readonly LoadedToolpack[],
  problems: readonly ToolpackProblem[],
): ListedWebuiEntry[] {
  const missing = new Set(
    problems
      .filter((problem) => problem.rule === 'webui-handler-missing')
      .map((problem) => `${problem.file}#${problem.pointer ?? ''}`),
  );
  return toolpacks.flatMap((toolpack) =>
    toolpack.webui
      .filter((_entry, index) => !missing.has(`${toolpack.manifestFile}#${entryPointer(index)}`))
      .map((entry) => ({ ...entry, toolpack: toolpack.id })),
  );
}
