import type { Logger } from '../../src/base/logging/index.js';
import type { ToolContext } from '../../src/engine/tools/index.js';

/** A service the tool under test never reaches: calling it fails the test loudly. */
function unused(): never {
  throw new Error('not used by the tools under test');
}

/**
 * A ToolContext for calling tools directly: the web chat owner's session in agent `main`, with
 * services that throw when used (pass the ones a test needs in `overrides`).
 */
export function testToolContext(logger: Logger, overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    sessionKey: 'agent:main:webchat:direct:local',
    agentId: 'main',
    runId: 'run-1',
    senderId: 'webchat:local',
    isOwner: true,
    route: { channel: 'webchat', chatType: 'direct', chatId: 'local' },
    logger,
    signal: new AbortController().signal,
    depth: 0,
    services: {
      sessions: { list: unused, details: unused },
      gateway: {
        configGet: unused,
        schemaLookup: unused,
        configEdit: unused,
        configPreview: unused,
        configHistory: unused,
        configChange: unused,
        configUndo: unused,
        restart: unused,
        restartAllowed: unused,
      },
      subagents: { spawn: unused, act: unused },
    },
    ...overrides,
  };
}
