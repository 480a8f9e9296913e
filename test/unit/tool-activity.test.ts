import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import type { Tool } from '../../src/engine/tools/index.js';
import { createToolActivity } from '../../src/extensions/toolpacks/builtin/tool-activity.js';
import { summarizeInput } from '../../src/extensions/toolpacks/builtin/tool-call-summary.js';
import { listToolStatus } from '../../src/extensions/toolpacks/builtin/webui/tool-status.js';
import { testToolContext } from '../helpers/tool-context.js';

const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });

function tool(name: string, execute: Tool['execute']): Tool {
  return { name, description: 'a test tool', parameters: Type.Object({}), execute };
}

describe('the tool activity recorder', () => {
  it('records a call as running, then completed or failed (ok:false, non-zero exit, a throw rethrown)', async () => {
    const activity = createToolActivity();
    let release: (value: unknown) => void = () => undefined;
    const slow = activity.watch(
      tool('shell.exec', (input) =>
        (input as { command: string }).command === 'true'
          ? { ok: true, exitCode: 0, signal: null }
          : new Promise((resolve) => {
              release = resolve;
            }),
      ),
      'toolpack shell',
    );
    const context = testToolContext(logger, { agentId: 'ops' });
    const running = slow.execute({ command: 'sleep 1' }, context);
    expect(activity.totals()).toEqual([
      expect.objectContaining({ tool: 'shell.exec', source: 'toolpack shell', calls: 1, running: 1 }),
    ]);
    expect(activity.recent(['shell.exec'], 5)).toEqual([
      expect.objectContaining({ agentId: 'ops', status: 'running', summary: 'sleep 1' }),
    ]);
    release({ ok: true, exitCode: 2, signal: null });
    await running;
    await slow.execute({ command: 'true' }, context);

    const refusing = activity.watch(
      tool('web.fetch', () => ({ ok: false, reason: 'host refused' })),
      'web',
    );
    expect(await refusing.execute({ url: 'https://user:pw@example.com/a/b?key=secret#x' }, context)).toEqual({
      ok: false,
      reason: 'host refused',
    });
    const throwing = activity.watch(
      tool('file.read', () => {
        throw new Error('disk gone');
      }),
      'file',
    );
    await expect(throwing.execute({ path: 'notes.md' }, context)).rejects.toThrow('disk gone');

    const byTool = new Map(activity.totals().map((total) => [total.tool, total]));
    expect(byTool.get('shell.exec')).toMatchObject({ calls: 2, running: 0, completed: 1, failed: 1 });
    expect(byTool.get('web.fetch')?.last).toMatchObject({ status: 'failed', error: 'host refused' });
    expect(byTool.get('file.read')?.last).toMatchObject({ status: 'failed', error: 'disk gone' });
    expect(
      activity.recent(undefined, 10).map((call) => `${call.tool} ${call.status} ${call.summary}`),
    ).toEqual([
      'file.read failed notes.md',
      'web.fetch failed https://example.com/a/b',
      'shell.exec completed true',
      'shell.exec failed sleep 1',
    ]);
    expect(activity.recent(['shell.exec'], 10)[1]?.error).toBe('exit code 2');
  });

  it('keeps only the latest calls, and scrubs summaries and errors', async () => {
    const activity = createToolActivity({
      limit: 3,
      scrub: (text) => text.replaceAll('hunter2', '[redacted]'),
    });
    const echo = activity.watch(
      tool('shell.exec', () => ({ ok: false, reason: 'exit: hunter2' })),
      'toolpack shell',
    );
    const context = testToolContext(logger);
    for (const index of [1, 2, 3, 4, 5]) await echo.execute({ command: `echo ${index} hunter2` }, context);
    const recent = activity.recent(undefined, 10);
    expect(recent.map((call) => call.summary)).toEqual([
      'echo 5 [redacted]',
      'echo 4 [redacted]',
      'echo 3 [redacted]',
    ]);
    expect(recent[0]?.error).toBe('exit: [redacted]');
    // The counters still count every call.
    expect(activity.totals()[0]).toMatchObject({ calls: 5, failed: 5 });
  });

  it('summarizes arguments without contents', () => {
    expect(summarizeInput('file.write', { path: 'a.txt', content: 'secret body' })).toBe('a.txt');
    expect(summarizeInput('file.patch', { path: 'a.txt', edits: [{}, {}] })).toBe('a.txt (2 edits)');
    expect(summarizeInput('shell.exec', { command: '  ls -la\nrm -rf x\n' })).toBe('ls -la …(+1 lines)');
    expect(summarizeInput('web.fetch', { url: 'not a url' })).toBe('not a URL');
    expect(summarizeInput('messages.send', { body: 'hello' })).toBe('');
  });
});

describe('per-tool status', () => {
  it('names the toolpack and its kind, and the agents each allowlist lets see the tool', () => {
    const activity = createToolActivity();
    activity.watch(
      tool('review.summarize', () => ({ ok: true })),
      'toolpack review-tools',
    );
    activity.watch(
      tool('file.read', () => ({ ok: true })),
      'toolpack core',
    );
    activity.watch(
      tool('sessions_list', () => ({ ok: true })),
      'builtin',
    );
    const status = listToolStatus({
      activity,
      agents: { pm: { tools: ['*'] }, reviewer: { tools: ['review.*'] }, reader: { tools: ['file.read'] } },
    });
    expect(
      status.map(({ tool, toolpackId, toolpackKind, enabledForAgents }) => ({
        tool,
        toolpackId,
        toolpackKind,
        enabledForAgents,
      })),
    ).toEqual([
      { tool: 'file.read', toolpackId: 'core', toolpackKind: 'builtin', enabledForAgents: ['pm', 'reader'] },
      {
        tool: 'review.summarize',
        toolpackId: 'review-tools',
        toolpackKind: 'local',
        enabledForAgents: ['pm', 'reviewer'],
      },
      { tool: 'sessions_list', toolpackId: undefined, toolpackKind: undefined, enabledForAgents: ['pm'] },
    ]);
  });
});
