import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '../../src/base/logging/index.js';
import {
  type ControllerHost,
  checkWebuiHandlers,
  createControllerHost,
  createProjectStore,
  type LoadedToolpack,
  listWebuiEntries,
  type ToolpackProblem,
} from '../../src/extensions/toolpacks/index.js';
import { createStore } from '../../src/records/store/index.js';
import {
  createControlServer,
  type SchedulerHookView,
  type ToolStatusView,
} from '../../src/surfaces/control/index.js';
import type { AccessPolicy } from '../../src/surfaces/http/index.js';
import { removeDir } from './machine.js';
import { FIXTURES_DIR, loadToolpackFixture } from './toolpacks.js';

/** The agents the controllers see (`listAgents`) and the Tools page's roster. */
export const TOOL_UI_ROSTER = [
  { id: 'pm', displayName: 'Project manager', role: 'coordinator', status: 'idle' },
  { id: 'reviewer', displayName: 'Reviewer', role: 'review', status: 'idle' },
];

export interface ToolUiServer {
  url: string;
  toolpacks: LoadedToolpack[];
  /** What `checkWebuiHandlers` found. */
  problems: ToolpackProblem[];
  /** Closes the server and the store and deletes the state dir. */
  close(): Promise<void>;
}

/**
 * Toolpack fixtures (paths under test/fixtures) behind a real HTTP server with the Tools page and
 * its API, their controllers wired as `createToolpacks` (src/extensions/toolpacks/create-toolpacks.ts) wires them, on a memory store.
 */
export async function startToolUiServer(options: {
  fixtures: string[];
  token: string;
  /** What the controllers' `projectStats` returns. */
  stats: Record<string, number>;
  /** The skipped toolpacks `GET /api/toolpacks` reports. */
  reportedProblems?: ToolpackProblem[];
  /** The scheduler hooks' state `GET /api/toolpacks` reports. */
  reportedHooks?: SchedulerHookView[];
  /** The loaded toolpacks `GET /api/toolpacks` reports (with `notProvided`, say). */
  reportedToolpacks?: {
    id: string;
    directory: string;
    tools: string[];
    webui: string[];
    notProvided?: string[];
  }[];
  /** Collects the JSON log lines (level info and up); without it nothing is logged. */
  logLines?: string[];
  /** What `GET …/tool-status` lists; default: nothing. */
  toolStatus?: ToolStatusView[];
  /** Who is an owner; default: the server's (`webchat:local`, the gateway token's user). */
  access?: AccessPolicy;
  /** `http.users`: name → token, each signing in as `webchat:<name>`. */
  users?: Record<string, string>;
}): Promise<ToolUiServer> {
  const stateDir = await realpath(await mkdtemp(path.join(tmpdir(), 'tool-ui-')));
  const { logLines } = options;
  const logger = logLines
    ? createLogger({ level: 'info', destination: { write: (line: string) => void logLines.push(line) } })
        .logger
    : createLogger({ level: 'silent' }).logger;
  const store = await createStore({ url: 'memory://', stateDir, logger });
  const toolpacks = await Promise.all(options.fixtures.map(loadFixture));
  const hostFor = (toolpack: LoadedToolpack): ControllerHost => {
    const projectStore = createProjectStore({
      toolpackId: toolpack.id,
      stateDir,
      routeNames: [],
      coordinatorAgent: 'pm',
      listAgents: () => TOOL_UI_ROSTER,
      projectStats: () => options.stats,
      deliver: () => {},
      store,
      logger,
    });
    return createControllerHost({ toolpack, store: projectStore, logger, recordSignal: () => {} });
  };
  const controllers = new Map(toolpacks.map((toolpack) => [toolpack.id, hostFor(toolpack)]));
  const problems = await checkWebuiHandlers(toolpacks, controllers);
  const entries = listWebuiEntries(toolpacks, problems);
  const http = await createControlServer({
    host: '127.0.0.1',
    port: 0,
    token: options.token,
    users: options.users,
    logger,
    access: options.access,
    sessions: {
      list: async () => ({ sessions: [] }),
      transcript: async () => undefined,
      subagents: async () => undefined,
    },
    toolpacks: {
      report: () => ({
        toolpacks: options.reportedToolpacks ?? [],
        builtins: [],
        problems: options.reportedProblems ?? [],
        schedulerHooks: options.reportedHooks ?? [],
      }),
    },
    toolUi: {
      projectId: 'default',
      entries: () => entries,
      run: (toolpackId, entryId, input) => {
        const controller = controllers.get(toolpackId);
        if (!controller) throw new Error(`no controller for ${toolpackId}`);
        return controller.webui(entryId, input);
      },
      roster: () => TOOL_UI_ROSTER,
      toolStatus: () => options.toolStatus ?? [],
    },
  });
  return {
    url: await http.listen(),
    toolpacks,
    problems,
    async close() {
      await http.close();
      await store.close();
      await removeDir(stateDir);
    },
  };
}

function loadFixture(relative: string): Promise<LoadedToolpack> {
  return loadToolpackFixture(path.join(FIXTURES_DIR, relative));
}
