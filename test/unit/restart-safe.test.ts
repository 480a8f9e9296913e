import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/base/config/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import { communicationPolicy } from '../../src/base/messages/index.js';
import {
  openCalls,
  resumeOpenCalls,
  resumeVerdict,
  unknownOutcome,
} from '../../src/engine/agents/resume-turn.js';
import type { SubagentRun } from '../../src/engine/subagents/index.js';
import { resumeDecision } from '../../src/engine/subagents/resume.js';
import { GATEWAY_TOOLS, isRestartSafe, type Tool } from '../../src/engine/tools/index.js';
import { createMcpTool } from '../../src/extensions/mcp/mcp-tool.js';
import {
  createBuiltinToolpackTools,
  createCompletionRecords,
  createCoreTools,
  declaredTool,
} from '../../src/extensions/toolpacks/index.js';
import type { NewTranscriptEntry, TranscriptEntry } from '../../src/records/sessions/index.js';
import { createStore } from '../../src/records/store/index.js';

/** Issue 32 §1: which tools a resumed turn may run again, and what it does with the calls left without a result. */

const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });

async function shippedTools(): Promise<Map<string, Tool>> {
  const validated = validateConfig({ agents: { main: {} } });
  if (!validated.ok) throw new Error(JSON.stringify(validated.error));
  const config = validated.value;
  const options = { config, configPath: 'gateway.jsonc', stateDir: '.' };
  const store = await createStore({ url: 'memory://', stateDir: '.', logger });
  const core = createCoreTools({
    ...options,
    send: async () => ({ ok: true }),
    routes: {},
    policy: communicationPolicy(config),
    completions: createCompletionRecords({ store }),
  });
  const packs = (['file', 'shell', 'web'] as const).flatMap((name) =>
    createBuiltinToolpackTools(name, options),
  );
  await store.close();
  return new Map([...GATEWAY_TOOLS, ...core, ...packs].map((tool) => [tool.name, tool]));
}

describe('restart-safe tools', () => {
  it('are the read-only ones; shell.exec, messages.send, the gateway tool and writes are not', async () => {
    const tools = await shippedTools();
    const safe = (name: string) => {
      const tool = tools.get(name);
      if (!tool) throw new Error(`no shipped tool ${name}`);
      return isRestartSafe(tool);
    };
    expect(['session_status', 'sessions_list', 'file.read'].map(safe)).toEqual([true, true, true]);
    expect(['shell.exec', 'messages.send', 'gateway', 'file.write', 'sessions_spawn'].map(safe)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('a toolpack tool only when its manifest says restartSafe', () => {
    const declared = {
      name: 'pack.read',
      description: 'reads',
      inputSchema: { type: 'object' },
      validate: (() => true) as never,
    };
    expect(isRestartSafe(declaredTool(declared, () => null))).toBe(false);
    expect(isRestartSafe(declaredTool({ ...declared, restartSafe: true }, () => null))).toBe(true);
  });

  it('an MCP tool only when its server marks it read-only', () => {
    const mcp = (annotations?: { readOnlyHint?: boolean }) =>
      createMcpTool({
        server: 'files',
        name: 'mcp.files.x',
        info: { name: 'x', inputSchema: { type: 'object' }, ...(annotations ? { annotations } : {}) },
        risk: undefined,
        caller: { call: async () => ({}), unavailable: () => undefined },
      });
    expect([mcp(), mcp({ readOnlyHint: false }), mcp({ readOnlyHint: true })].map(isRestartSafe)).toEqual([
      false,
      false,
      true,
    ]);
  });
});

function entry(seq: number, fields: NewTranscriptEntry): TranscriptEntry {
  return { seq, at: new Date(0).toISOString(), ...fields };
}

const CALLS = [
  { id: 'c1', name: 'session_status', arguments: '{}' },
  { id: 'c2', name: 'shell.exec', arguments: '{"command":"touch x"}' },
];

describe('a resumed turn', () => {
  const user = entry(0, { role: 'user', text: 'check and run' });
  const round = entry(1, { role: 'assistant', text: '', runId: 'r0', toolCalls: CALLS });

  it('finds the calls of its last round that have no result', () => {
    expect(openCalls([user, round]).map((call) => call.id)).toEqual(['c1', 'c2']);
    const first = entry(2, { role: 'tool', text: '{}', toolCallId: 'c1', toolName: 'session_status' });
    expect(openCalls([user, round, first]).map((call) => call.id)).toEqual(['c2']);
    // A round followed by anything but its results is not the turn's last: nothing to resume there.
    expect(openCalls([user, round, entry(2, { role: 'user', text: 'later' })])).toEqual([]);
    expect(openCalls([user])).toEqual([]);
  });

  it('runs the restart-safe call again and tells the model the other outcome is unknown, recording both', async () => {
    const executed: string[] = [];
    const recorded: NewTranscriptEntry[] = [];
    const resumed = await resumeOpenCalls(
      [user, round],
      {
        isRestartSafe: (name) => name === 'session_status',
        execute: async (call) => {
          executed.push(call.name);
          return { content: '{"status":"fine"}', isError: false, endsRun: false };
        },
      },
      async (written) => {
        recorded.push(written);
        return entry(recorded.length + 1, written);
      },
      'r1',
    );
    expect(executed).toEqual(['session_status']);
    expect({ repeated: resumed.repeated, unknown: resumed.unknown }).toEqual({ repeated: 1, unknown: 1 });
    expect(recorded).toEqual([
      { role: 'tool', text: '{"status":"fine"}', runId: 'r1', toolCallId: 'c1', toolName: 'session_status' },
      {
        role: 'tool',
        text: unknownOutcome('shell.exec'),
        runId: 'r1',
        toolCallId: 'c2',
        toolName: 'shell.exec',
        isError: true,
      },
    ]);
    expect(unknownOutcome('shell.exec')).toMatch(/not run again\. Do not assume it succeeded or failed/);
    expect(resumed.entries.map((written) => written.toolCallId)).toEqual(['c1', 'c2']);
  });
});

describe('the resume rule, one for turns and sub-agent runs', () => {
  const work = { attempts: 1, resume: undefined, idleMs: 1000, resumeWithinMs: 7_200_000 };

  it('resumes until the third attempt, unless the agent says off or the work is older than the limit', () => {
    expect(resumeVerdict(work)).toEqual({ kind: 'resume' });
    expect(resumeVerdict({ ...work, attempts: 2, resume: 'safe' })).toEqual({ kind: 'resume' });
    expect(resumeVerdict({ ...work, attempts: 3 })).toEqual({ kind: 'end', why: 'attempts' });
    expect(resumeVerdict({ ...work, resume: 'off' })).toEqual({ kind: 'end', why: 'off' });
    expect(resumeVerdict({ ...work, idleMs: 7_200_001 })).toEqual({ kind: 'end', why: 'stale' });
  });

  it('is what a sub-agent run left running gets, its age from its start when its child wrote nothing', () => {
    const run = { subagentRunId: 'r1', agentId: 'main', startedAt: 0 } as SubagentRun;
    const facts = { agent: {}, lastEntryAt: undefined, now: 60_000, resumeWithinMs: 30_000 };
    expect(resumeDecision(run, facts)).toEqual({
      kind: 'end',
      why: 'A restart cut this run short and it was not resumed: it was cut short 60 s ago, longer than agentLoop.resumeWithinMs (30 s).',
    });
    expect(resumeDecision(run, { ...facts, lastEntryAt: 50_000 })).toEqual({ kind: 'resume', resumes: 1 });
    expect(resumeDecision({ ...run, resumes: 2 }, { ...facts, lastEntryAt: 50_000 })).toMatchObject({
      kind: 'end',
      why: expect.stringContaining('the gateway stopped each of the 3 times it ran'),
    });
  });
});
