import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/base/config/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import {
  GATEWAY_TOOLS,
  type Tool,
  type ToolContext,
  type ToolServices,
} from '../../src/engine/tools/index.js';
import { createSessionStore, summarizeSession } from '../../src/records/sessions/index.js';
import { createStore } from '../../src/records/store/index.js';
import { createSessionsService } from '../../src/surfaces/control/session-views.js';

const { logger } = createLogger({ level: 'silent' });
const KEY = 'agent:main:webchat:direct:carol';
const AT = '2026-01-01T00:00:00.000Z';

function unused(): never {
  throw new Error('not used by the tools under test');
}

async function setup() {
  const checked = validateConfig({
    models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: 'http://127.0.0.1:9/v1' } },
    agents: { main: { model: 'fake' }, ops: {} },
  });
  if (!checked.ok) throw new Error(JSON.stringify(checked.error));
  const store = await createStore({ url: 'memory://', stateDir: '.', logger });
  const sessions = createSessionStore({ store, now: () => new Date(AT) });
  await sessions.ensure(KEY, {
    agentId: 'main',
    route: { channel: 'webchat', chatType: 'direct', chatId: 'carol' },
  });
  const service = createSessionsService({
    sessions,
    status: () => 'running',
    depth: () => 2,
    activity: () => ({ runId: 'run-1', burst: 3 }),
    config: checked.value,
  });
  const services: ToolServices = {
    sessions: service,
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
  };
  const context: ToolContext = {
    sessionKey: KEY,
    agentId: 'main',
    route: { channel: 'webchat', chatType: 'direct', chatId: 'carol' },
    depth: 0,
    senderId: 'webchat:carol',
    isOwner: false,
    runId: 'run-1',
    logger,
    signal: new AbortController().signal,
    services,
  };
  const record = await sessions.get(KEY);
  if (!record) throw new Error('the session was not created');
  return { context, record };
}

function tool(name: string): Tool {
  const found = GATEWAY_TOOLS.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no built-in tool ${name}`);
  return found;
}

const SUMMARY_TEXT =
  `"key":"${KEY}","agentId":"main","channel":"webchat","chatType":"direct","status":"running",` +
  `"transcriptLength":0,"createdAt":"${AT}","lastActivityAt":"${AT}"`;

describe('the session views', () => {
  it('summarizes a record for the HTTP list: every field, the session id included', async () => {
    const { record } = await setup();
    expect(summarizeSession(record, 'idle')).toEqual({
      key: KEY,
      agentId: 'main',
      channel: 'webchat',
      chatType: 'direct',
      status: 'idle',
      transcriptLength: 0,
      createdAt: AT,
      lastActivityAt: AT,
      sessionId: record.sessionId,
    });
  });

  it('sessions_list shows the model its sessions without the session id, fields in their order', async () => {
    const { context } = await setup();
    const result = await tool('sessions_list').execute({ limit: 20 }, context);
    expect(JSON.stringify(result)).toBe(`{"ok":true,"total":1,"sessions":[{${SUMMARY_TEXT}}]}`);
  });

  it('session_status shows the summary, the session id and the running turn, fields in their order', async () => {
    const { context, record } = await setup();
    const result = await tool('session_status').execute({}, context);
    expect(JSON.stringify(result)).toBe(
      `{"ok":true,"session":{${SUMMARY_TEXT},"sessionId":"${record.sessionId}","queued":2,` +
        '"runId":"run-1","burst":3,"model":"fake"}}',
    );
  });
});
