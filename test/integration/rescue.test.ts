import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { makeTempDir } from '../helpers/machine.js';
import { pollUntil } from '../helpers/process.js';
import { FIXTURES_DIR } from '../helpers/toolpacks.js';

// Issue 32 §2 and §3 on a real gateway and real files: the crash-loop breaker's safe mode (entered
// from the start record the earlier, dead processes left), `/readyz` saying why, and the owner's
// model-free `/rescue` through the web chat: plans, codes, the owner gate, the audit.

const DIES = path.join(FIXTURES_DIR, 'controller-toolpacks', 'dies-after-ready');

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.dispose();
  gateway = undefined;
});

async function reply(text: string, user?: string): Promise<string> {
  const sent = await gateway?.send(text, user);
  expect(sent?.status).toBe(200);
  return sent?.body.replies.at(-1).text as string;
}

const codeOf = (plan: string) => /^Rescue plan ([a-z2-9]{6}):/.exec(plan)?.[1] ?? '';

async function auditLines(dir: string): Promise<Record<string, string>[]> {
  const text = await readFile(path.join(dir, 'data', 'rescue-audit.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

describe('/rescue: owners only, one plan, one use', () => {
  it('refuses a non-owner, and runs nothing on a wrong or revoked code or another owner’s yes', async () => {
    gateway = await startTestGateway({
      config: { owners: ['webchat:local', 'webchat:alice'], commands: { restart: false } },
    });
    const file = gateway.configPath;
    const original = await readFile(file, 'utf8');

    expect(await reply('/rescue status', 'bob')).toBe(
      '/rescue refused: webchat:bob, role member may not run /rescue: role member lacks it (roles.member.commands: *).',
    );
    expect(await reply('/rescue config set agents.main.displayName Rescued', 'bob')).toBe(
      '/rescue refused: webchat:bob, role member may not run /rescue: role member lacks it (roles.member.commands: *).',
    );

    const first = await reply('/rescue config set agents.main.displayName Rescued');
    expect(first).toMatch(/^Rescue plan [a-z2-9]{6}: set agents\.main\.displayName to "Rescued"/);
    expect(first).toContain(`Reply /rescue yes ${codeOf(first)} within 60 s`);
    expect(await reply('/rescue yes zzzzzz')).toBe(
      'Refused: no pending rescue plan has the code zzzzzz; nothing was run.',
    );
    expect(await reply(`/rescue yes ${codeOf(first)}`, 'alice')).toBe(
      `Refused: plan ${codeOf(first)} was asked for by webchat:local, not webchat:alice; nothing was run.`,
    );
    expect(await reply(`/rescue yes ${codeOf(first)}`, 'bob')).toBe(
      '/rescue refused: webchat:bob, role member may not run /rescue: role member lacks it (roles.member.commands: *).',
    );
    // A newer plan revokes the older one.
    const second = await reply('/rescue config set agents.main.displayName Second');
    expect(await reply(`/rescue yes ${codeOf(first)}`)).toMatch(
      /^Refused: no pending rescue plan has the code/,
    );
    expect(await readFile(file, 'utf8')).toBe(original);
    expect(await auditLines(gateway.dir)).toEqual([]);

    expect(await reply(`/rescue yes ${codeOf(second)}`)).toMatch(/^Changed agents[.\w]*\. Not restarting/);
    expect(await readFile(file, 'utf8')).toContain('"Second"');
    // Used once.
    expect(await reply(`/rescue yes ${codeOf(second)}`)).toMatch(/^Refused: no pending rescue plan/);
    const [step, ...more] = await auditLines(gateway.dir);
    expect(more).toEqual([]);
    expect(step).toMatchObject({ actor: 'webchat:local', action: 'config set agents.main.displayName' });
    expect(step?.hashBefore).toMatch(/^[0-9a-f]{64}$/);
    expect(step?.hashAfter).toMatch(/^[0-9a-f]{64}$/);
    expect(step?.hashAfter).not.toBe(step?.hashBefore);
    // The edit went through the config editor: its audit has it, by the owner, via command.
    const editorAudit = await readFile(path.join(gateway.dir, 'data', 'config-audit.jsonl'), 'utf8');
    expect(editorAudit).toContain(step?.hashAfter);

    // The last config that reached ready is the original: the diff shows the edit, revert undoes it.
    const diff = await reply('/rescue config diff-last-good');
    expect(diff).toMatch(/^```diff\n/);
    expect(diff).toContain('"Second"');
    expect(await reply('/rescue status')).toContain('(differs: /rescue config diff-last-good)');
    const revert = await reply('/rescue config revert-last-good');
    expect(revert).toMatch(/^Rescue plan [a-z2-9]{6}: write the last config that reached ready back/);
    expect(await reply(`/rescue yes ${codeOf(revert)}`)).toMatch(/^Changed agents[.\w]*\. Not restarting/);
    expect(await readFile(file, 'utf8')).not.toContain('"Second"');
    expect(await reply('/rescue config diff-last-good')).toBe(
      'The config file is the last config that reached ready.',
    );
  });
});

describe('the crash-loop breaker', () => {
  it('starts in safe mode after 3 unclean starts, says why, leaves the file alone, and the owner brings it back', async () => {
    const dir = await makeTempDir('switchboard-rescue-');
    await mkdir(path.join(dir, 'data'), { recursive: true, mode: 0o700 });
    // What three processes that died 5 s after ready left behind (the e2e test makes them for real).
    const now = Date.now();
    const died = (secondsAgo: number) => ({
      id: `dead-${secondsAgo}`,
      pid: 100_000 + secondsAgo,
      at: new Date(now - secondsAgo * 1000).toISOString(),
      readyAt: new Date(now - secondsAgo * 1000 + 2000).toISOString(),
      cause: 'Error: dies-after-ready: the ledger is gone',
    });
    await writeFile(
      path.join(dir, 'data', 'start-record.json'),
      JSON.stringify({ version: 1, starts: [died(90), died(60), died(30)] }),
    );
    gateway = await startTestGateway({
      dir,
      config: {
        tools: { toolpacks: ['core', { path: DIES, id: 'dies-after-ready' }] },
      },
    });
    const file = gateway.configPath;
    const original = await readFile(file, 'utf8');

    const ready = await fetch(`${gateway.url}/readyz`);
    const body = (await ready.json()) as Record<string, unknown>;
    expect(ready.status).toBe(503);
    expect(body).toMatchObject({
      mode: 'safe-mode',
      safeMode: { cause: 'crash-loop', uncleanStarts: 3 },
      reasons: [{ component: 'safe-mode', state: 'crash-loop' }],
    });
    // Public: no error text, no path.
    expect(JSON.stringify(body)).not.toContain('ledger');
    const health = (await (await fetch(`${gateway.url}/healthz`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ mode: 'safe-mode', status: 'degraded' });
    // The toolpack that kills the process is not started.
    const toolpacks = await gateway.request('GET', '/api/toolpacks');
    expect(JSON.stringify(toolpacks.body)).not.toContain('dies-after-ready');

    const status = await reply('/rescue status');
    expect(status).toMatch(/^Safe mode since .*: 3 unclean starts in 5 min/);
    expect(status).toContain('died within a minute of ready: Error: dies-after-ready: the ledger is gone');
    expect(await readFile(file, 'utf8')).toBe(original);

    const disable = await reply('/rescue disable toolpack dies-after-ready');
    expect(disable).toMatch(
      /^Rescue plan [a-z2-9]{6}: remove toolpack dies-after-ready from tools\.toolpacks/,
    );
    expect(await readFile(file, 'utf8')).toBe(original);
    expect(await reply(`/rescue yes ${codeOf(disable)}`)).toMatch(/^Changed tools\.toolpacks\. Restarting/);
    expect(await readFile(file, 'utf8')).not.toContain('dies-after-ready');
    // The edit's restart: still safe mode until an owner leaves it.
    await pollUntil('the restart after the edit', () => gateway?.host.restarts === 1 && gateway.host.loaded);
    expect(gateway.host.safeMode?.cause).toBe('crash-loop');

    const leave = await reply('/rescue leave-safe-mode');
    expect(leave).toMatch(/^Rescue plan [a-z2-9]{6}: leave safe mode/);
    expect(await reply(`/rescue yes ${codeOf(leave)}`)).toMatch(
      /^Safe mode left: the unclean starts no longer count\. Restarting in normal mode/,
    );
    await pollUntil(
      'the restart that leaves safe mode',
      () => gateway?.host.restarts === 2 && gateway.host.loaded,
    );
    const back = await fetch(`${gateway.url}/readyz`);
    expect(await back.json()).toMatchObject({ ready: true, mode: 'normal' });
    expect(back.status).toBe(200);
    expect((await auditLines(dir)).map((line) => line.action)).toEqual([
      'disable toolpack dies-after-ready',
      'leave-safe-mode',
    ]);
  });
});
