import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Config, validateConfig } from '../../src/base/config/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import type { DeliveryRoute, OutboundMessage } from '../../src/base/messages/index.js';
import {
  type Approvals,
  actionValue,
  createApprovals,
  resolvePolicy,
} from '../../src/engine/approvals/index.js';
import type { ApprovalVerdict, GatedCall, ToolContext } from '../../src/engine/tools/index.js';
import { createStore, type Store } from '../../src/records/store/index.js';
import { outboundTo } from '../fakes/outbound.js';
import { testToolContext } from '../helpers/tool-context.js';

const logger = createLogger({ level: 'silent' }).logger;
const OWNER = 'slack:U1';
const SHELL: GatedCall = { tool: 'shell.exec', input: { command: 'echo hi' }, review: { risky: true } };
const ROUTE: DeliveryRoute = { channel: 'slack', chatType: 'channel', chatId: 'C1', threadId: '1.1' };

function configOf(value: Record<string, unknown> = {}): Config {
  const result = validateConfig({ owners: [OWNER], ...value });
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result.value;
}

interface Rig {
  approvals: Approvals;
  posts: { route: DeliveryRoute; message: OutboundMessage }[];
  stateDir: string;
  store: Store;
  remembered: string[];
}

const open: Approvals[] = [];
afterEach(() => {
  for (const approvals of open.splice(0)) approvals.close();
  vi.useRealTimers();
});

async function rig(
  options: { config?: Config; store?: Store; stateDir?: string; audited?: string[] } = {},
): Promise<Rig> {
  const stateDir = options.stateDir ?? (await mkdtemp(path.join(tmpdir(), 'switchboard-approvals-')));
  const store = options.store ?? (await createStore({ url: 'memory://', stateDir, logger }));
  const posts: Rig['posts'] = [];
  const remembered: string[] = [];
  const approvals = createApprovals({
    config: options.config ?? configOf(),
    store,
    stateDir,
    outboundFor: outboundTo({
      reply: (route, message) => {
        posts.push({ route, message });
      },
    }),
    rememberAlways: async ({ agentId, tool }) => {
      remembered.push(`${agentId}/${tool}`);
      return 'written';
    },
    scrub: (text) => text.replaceAll('sk-secret', '[REDACTED]'),
    ...(options.audited ? { onAudit: (event: string) => options.audited?.push(event) } : {}),
    logger,
  });
  await approvals.start();
  open.push(approvals);
  return { approvals, posts, stateDir, store, remembered };
}

const context = (signal = new AbortController().signal) =>
  testToolContext(logger, {
    signal,
    senderId: 'slack:U2',
    route: ROUTE,
    sessionKey: 'agent:main:slack:channel:C1:thread:1.1',
  });

/** Resolves once a request is posted; its buttons' values by label. */
async function posted(target: Rig, count = 1): Promise<Record<string, string>> {
  await vi.waitFor(() => expect(target.posts.length).toBeGreaterThanOrEqual(count));
  const message = target.posts[count - 1]?.message;
  return Object.fromEntries((message?.actions ?? []).map((action) => [action.label, action.value]));
}

describe('approval policy', () => {
  it('takes the agent table over the gateway table, an exact name over the longest pattern over *', () => {
    const config = configOf({
      approvals: { tools: { '*': 'deny', 'web.*': 'auto', 'web.fetch.*': 'ask', 'shell.exec': 'auto' } },
      agents: { main: { approvals: { tools: { 'shell.exec': 'deny' } } } },
    });
    expect(resolvePolicy(config, 'main', 'shell.exec', true)).toBe('deny');
    expect(resolvePolicy(config, 'other', 'shell.exec', true)).toBe('auto');
    expect(resolvePolicy(config, 'main', 'web.fetch.page', false)).toBe('ask');
    expect(resolvePolicy(config, 'main', 'web.search', false)).toBe('auto');
    expect(resolvePolicy(config, 'main', 'file.read', false)).toBe('deny');
    expect(resolvePolicy(configOf(), 'main', 'file.read', false)).toBe('auto');
    expect(resolvePolicy(configOf(), 'main', 'shell.exec', true)).toBe('ask');
  });
});

describe('the approval gate', () => {
  it('runs auto calls, refuses deny ones with a reason the model reads', async () => {
    const target = await rig({ config: configOf({ approvals: { tools: { 'shell.exec': 'deny' } } }) });
    const read = { tool: 'file.read', input: { path: '/workspace/a' }, review: { risky: false } };
    expect(await target.approvals.check(read, context())).toEqual({
      status: 'approved',
      by: 'policy',
    });
    const denied = await target.approvals.check(SHELL, context());
    expect(denied).toMatchObject({ status: 'denied', by: 'policy' });
    expect(target.posts).toEqual([]);
  });

  it('posts a request with the arguments (secrets removed) and buttons; the approver decides once', async () => {
    const target = await rig();
    const call = { ...SHELL, input: { command: 'curl -H "Authorization: sk-secret" x' } };
    const verdict = target.approvals.check(call, context());
    const buttons = await posted(target);
    const { route, message } = target.posts[0] ?? {};
    expect(route).toEqual(ROUTE);
    expect(message?.text).toContain('wants to run shell.exec');
    expect(message?.text).toContain('[REDACTED]');
    expect(message?.text).not.toContain('sk-secret');
    // A Slack route: the app's slash command, as Slack's client refuses a bare /approve (issue 33 item 8).
    expect(message?.text).toMatch(/\/switchboard approve [A-Z2-9]{6}/);
    expect(Object.keys(buttons)).toEqual(['Approve', 'Deny', 'Always for shell.exec in main']);

    const stranger = await target.approvals.decide({
      kind: 'action',
      value: buttons.Approve ?? '',
      by: 'slack:U2',
    });
    // A click that does not count gives the request's buttons back with the reason, for the approver.
    expect(stranger.text).toBe(`Refused: only ${OWNER} may decide ${codeOf(message)}; you are slack:U2.`);
    expect(stranger.actions).toEqual(message?.actions);
    const typed = await target.approvals.decide({
      kind: 'code',
      code: codeOf(message),
      decision: 'approve',
      by: 'slack:U2',
    });
    expect(typed).toEqual({
      text: `Refused: only ${OWNER} may decide ${codeOf(message)}; you are slack:U2.`,
    });
    const approved = await target.approvals.decide({
      kind: 'action',
      value: buttons.Approve ?? '',
      by: OWNER,
    });
    expect(approved.text).toBe(`Approved by ${OWNER}: shell.exec runs now.`);
    expect(await verdict).toEqual({ status: 'approved', by: OWNER });
    const again = await target.approvals.decide({ kind: 'action', value: buttons.Deny ?? '', by: OWNER });
    expect(again.text).toBe(`Already decided. Approved by ${OWNER}: shell.exec runs now.`);
  });

  it('refuses a button whose value was edited or forged, and one it does not know', async () => {
    const target = await rig();
    const verdict = target.approvals.check(SHELL, context());
    const buttons = await posted(target);
    const approve = buttons.Approve ?? '';
    const edited = `${approve.slice(0, -4)}0000`;
    const refused = await target.approvals.decide({ kind: 'action', value: edited, by: OWNER });
    expect(refused.text).toMatch(/^Refused: this button does not match request [A-Z2-9]{6}'s arguments$/);
    expect(refused.actions?.map((action) => action.value)).toContain(approve);
    const otherId = actionValue('ap_000000000000', 'approve', 'f'.repeat(64));
    expect((await target.approvals.decide({ kind: 'action', value: otherId, by: OWNER })).text).toBe(
      'Refused: this button belongs to a request this gateway does not know',
    );
    expect((await target.approvals.decide({ kind: 'action', value: '{"x":1}', by: OWNER })).text).toBe(
      'Refused: this button is not an approval button of this gateway',
    );
    const code = codeOf(target.posts[0]?.message);
    const denied = await target.approvals.decide({
      kind: 'code',
      code: code.toLowerCase(),
      decision: 'deny',
      reason: 'not now',
      by: OWNER,
    });
    expect(denied.text).toBe(`Denied by ${OWNER}: shell.exec does not run (not now).`);
    expect(await verdict).toEqual<ApprovalVerdict>({ status: 'denied', by: OWNER, reason: 'not now' });
  });

  it('denies when nobody decides in time', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const target = await rig({ config: configOf({ approvals: { timeoutSeconds: 60 } }) });
    const verdict = target.approvals.check(SHELL, context());
    await vi.waitFor(() => expect(target.posts).toHaveLength(1));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await verdict).toEqual({ status: 'denied', by: 'timeout', reason: 'no decision within 60 s' });
    expect(target.posts[1]?.message.text).toBe(
      'Expired: nobody decided in time, so shell.exec does not run.',
    );
  });

  it('bounds the open requests of one requester: the next is refused at once, told in the chat, asks nobody', async () => {
    const target = await rig({ config: configOf({ approvals: { maxOpenPerRequester: 2 } }) });
    const stop = new AbortController();
    const asking = (scope: Partial<ToolContext>, command: string) =>
      target.approvals.check(
        { ...SHELL, input: { command } },
        { ...context(stop.signal), isOwner: false, ...scope },
      );
    const waiting = [asking({}, 'echo 1'), asking({}, 'echo 2')];
    await posted(target, 2);
    // The third of slack:U2, also one a sub-agent of theirs makes (charged to them), is refused.
    expect(await asking({}, 'echo 3')).toEqual({
      status: 'denied',
      by: 'gateway',
      reason:
        'slack:U2 has 2 approval requests open (approvals.maxOpenPerRequester is 2): this call was not asked for. Wait until an approver decides one of them, then try again.',
    });
    const child = {
      senderId: 'session:agent:main:slack:channel:C1',
      chargedTo: 'slack:U2',
      sessionKey: 'agent:main:subagent:x',
    };
    expect(await asking(child, 'echo 4')).toMatchObject({ status: 'denied', by: 'gateway' });
    expect(target.posts.map((post) => post.message.text.includes('this call was not asked for'))).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect(target.approvals.open()).toHaveLength(2);
    // Another requester, and an owner's turn, still ask.
    const other = asking({ senderId: 'slack:U3' }, 'echo 5');
    const owner = asking({ senderId: OWNER, isOwner: true }, 'echo 6');
    await posted(target, 6);
    expect(target.approvals.open()).toHaveLength(4);
    stop.abort(new Error('done'));
    for (const call of [...waiting, other, owner]) await expect(call).rejects.toThrow('done');
  });

  it('keeps a request across a restart: the same call waits on it again, the old button decides it once', async () => {
    const first = await rig();
    const stop = new AbortController();
    const waiting = first.approvals.check(SHELL, context(stop.signal));
    const buttons = await posted(first);
    stop.abort(new Error('gateway stopping'));
    await expect(waiting).rejects.toThrow('gateway stopping');
    first.approvals.close();

    const second = await rig({ store: first.store, stateDir: first.stateDir });
    expect(second.approvals.open().map((record) => record.status)).toEqual(['pending']);
    const again = second.approvals.check(SHELL, context());
    const decided = await second.approvals.decide({
      kind: 'action',
      value: buttons.Approve ?? '',
      by: OWNER,
    });
    expect(decided.text).toContain('Approved by');
    expect(await again).toEqual({ status: 'approved', by: OWNER });
    // Not posted again, and used up: the same call now asks anew.
    expect(second.posts).toEqual([]);
    const stopThird = new AbortController();
    const third = second.approvals.check(SHELL, context(stopThird.signal));
    await posted(second);
    expect(second.approvals.open()).toHaveLength(1);
    stopThird.abort(new Error('done'));
    await expect(third).rejects.toThrow('done');
  });

  it('"always" approves, remembers the tool for the agent and stops asking', async () => {
    const target = await rig();
    const verdict = target.approvals.check(SHELL, context());
    const buttons = await posted(target);
    const decided = await target.approvals.decide({
      kind: 'action',
      value: buttons['Always for shell.exec in main'] ?? '',
      by: OWNER,
    });
    expect(decided.text).toBe(
      `Approved by ${OWNER}, and from now on always for shell.exec in agent main: it runs now. written`,
    );
    expect(await verdict).toMatchObject({ status: 'approved' });
    expect(target.remembered).toEqual(['main/shell.exec']);
    const audit = await readFile(path.join(target.stateDir, 'approvals-audit.jsonl'), 'utf8');
    expect(JSON.parse(audit.trim().split('\n')[1] ?? '{}')).toMatchObject({
      event: 'approved',
      by: OWNER,
      always: true,
    });
    expect(await target.approvals.check(SHELL, context())).toEqual({ status: 'approved', by: 'policy' });
  });

  it('holds an owner command until that owner confirms it, then hands it back once', async () => {
    const target = await rig();
    const held = await target.approvals.hold({
      text: '/config apply {}',
      senderId: OWNER,
      sessionKey: 'agent:main:slack:channel:C1',
      agentId: 'main',
      route: ROUTE,
      summary: 'replace the whole config with {}',
      details: '-  "agents": {}',
    });
    expect(held.text).toMatch(/^Confirm \([A-Z2-9]{6}\): \/config apply \{\}/);
    expect(held.actions?.map((action) => action.label)).toEqual(['Confirm', 'Cancel']);
    const code = /Confirm \(([A-Z2-9]{6})\)/.exec(held.text)?.[1] ?? '';
    const other = await target.approvals.decide({ kind: 'code', code, decision: 'confirm', by: 'slack:U9' });
    expect(other.text).toBe(`Refused: only ${OWNER} may decide ${code}; you are slack:U9.`);
    const confirmed = await target.approvals.decide({ kind: 'code', code, decision: 'confirm', by: OWNER });
    expect(confirmed.confirmed?.text).toBe('/config apply {}');
    const twice = await target.approvals.decide({ kind: 'code', code, decision: 'confirm', by: OWNER });
    expect(twice.confirmed).toBeUndefined();
    expect(twice.text).toMatch(/^Already decided\./);
  });

  it('audits every request and decision without the arguments, and tells onAudit of each', async () => {
    const audited: string[] = [];
    const target = await rig({ audited });
    const verdict = target.approvals.check({ ...SHELL, input: { command: 'echo sk-secret' } }, context());
    const buttons = await posted(target);
    await target.approvals.decide({ kind: 'action', value: buttons.Approve ?? '', by: 'slack:U2' });
    await target.approvals.decide({ kind: 'action', value: buttons.Approve ?? '', by: OWNER });
    await verdict;
    const text = await readFile(path.join(target.stateDir, 'approvals-audit.jsonl'), 'utf8');
    const lines = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.event, line.by])).toEqual([
      ['requested', undefined],
      ['refused', 'slack:U2'],
      ['approved', OWNER],
      ['used', OWNER],
    ]);
    expect(audited).toEqual(['requested', 'refused', 'approved', 'used']);
    expect(text).not.toContain('echo');
    expect(lines[0]).toMatchObject({ tool: 'shell.exec', requester: 'slack:U2', agentId: 'main' });
    expect(lines[0].argumentsHash).toMatch(/^[0-9a-f]{64}$/);
  });
});

function codeOf(message: OutboundMessage | undefined): string {
  return /\(([A-Z2-9]{6})\)/.exec(message?.text ?? '')?.[1] ?? '';
}
