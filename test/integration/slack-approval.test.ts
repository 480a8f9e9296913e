import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { eventCallback, type FakeSlack, postSignedEvent, startFakeSlack } from '../fakes/fake-slack.js';
import { blockActions, buttonsOf, postSignedPayload } from '../fakes/fake-slack-actions.js';
import { slashCommand } from '../fakes/fake-slack-commands.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * Approvals end to end on Slack: the real gateway (router, approvals, tool loop, the built-in
 * `shell.exec`), the real Bolt against the fake Slack, a fake OpenAI model. The model calls
 * `shell.exec` under `ask`; the run waits; the request is posted in the thread with buttons; a
 * click that is not an approver's is refused; the owner's decides, and the run's answer reaches
 * the thread. Approve in Socket Mode, Deny in HTTP mode (a signed `payload=` form POST to the
 * gateway's `/slack/events`).
 */

const OWNER = 'U1';
const STRANGER = 'U2';
const SIGNING_SECRET = 'approval-signing-secret-31';

let gateway: TestGateway | undefined;
let fake: FakeSlack | undefined;
let model: FakeModelServer | undefined;
afterEach(async () => {
  await gateway?.dispose();
  await fake?.close();
  await model?.close();
  gateway = undefined;
  fake = undefined;
  model = undefined;
});

async function setup(mode: 'socket' | 'http', config: Record<string, unknown> = {}) {
  fake = await startFakeSlack();
  model = await startFakeOpenAIServer();
  gateway = await startTestGateway({
    config: {
      owners: ['webchat:local', `slack:${OWNER}`],
      channels: {
        slack: {
          mode,
          botToken: 'xoxb-approval-test',
          ...(mode === 'socket' ? { appToken: 'xapp-approval-test' } : { signingSecret: SIGNING_SECRET }),
          apiUrl: fake.apiUrl,
        },
      },
      tools: { toolpacks: ['shell'] },
      approvals: { tools: { 'shell.exec': 'ask' } },
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-approval-01' } },
      agents: { main: { model: 'fake' } },
      ...config,
    },
  });
  if (mode === 'socket') await fake.connected();
  return { fake, model, gateway };
}

const mention = (ts: string, text: string) => ({
  type: 'message',
  channel: 'C1',
  channel_type: 'channel',
  user: OWNER,
  text: `<@UBOT> ${text}`,
  ts,
});

/** The request the gateway posted in `thread`: its `ts` once it has buttons. */
async function requestIn(slack: FakeSlack, thread: string): Promise<string> {
  const call = await slack.waitForCall(
    'chat.postMessage',
    (candidate) => candidate.args.thread_ts === thread && candidate.args.blocks !== undefined,
    15_000,
  );
  // The fake keeps the message once it has answered the call.
  const kept = () =>
    [...slack.messages.values()].find(
      (message) => message.threadTs === thread && message.text === call.args.text,
    );
  await expect.poll(kept).toBeDefined();
  return kept()?.ts ?? '';
}

const updated = (slack: FakeSlack, ts: string, count: number) =>
  expect.poll(() => slack.callsTo('chat.update').filter((call) => call.args.ts === ts).length).toBe(count);
const lastUpdate = (slack: FakeSlack, ts: string) =>
  slack
    .callsTo('chat.update')
    .filter((call) => call.args.ts === ts)
    .at(-1)?.args.text ?? '';
const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

describe('Slack approvals through the gateway', () => {
  it('Socket Mode: the run waits; a stranger and an edited value are refused; the owner approves; it runs once', async () => {
    const { fake, model, gateway } = await setup('socket');
    const marker = path.join(gateway.dir, 'data/workspaces/main/approved.txt');
    model.push({
      toolCalls: [{ name: 'shell.exec', arguments: { command: 'echo ran >> approved.txt; echo ok' } }],
    });
    model.push({ text: 'The check ran: ok.' });
    await fake.deliver(mention('40.1', 'run the check'));

    const ts = await requestIn(fake, '40.1');
    const labels = buttonsOf(fake, ts).map((button) => button.text.text);
    expect(labels.slice(0, 2)).toEqual(['Approve', 'Deny']);
    const request = fake.messages.get(ts)?.text ?? '';
    expect(request).toContain('shell.exec');
    expect(request).toContain('echo ran');
    // The run waits: the model was asked once, nothing ran.
    expect(model.requests).toHaveLength(1);
    expect(await exists(marker)).toBe(false);

    const approve = (user: string) => blockActions(fake, { ts, user, label: 'Approve' });
    // Read while the buttons are there: the refusal's answer carries no buttons, so the update
    // removes them (the owner can still answer with the code in the text).
    const ownersClick = approve(OWNER);
    const shown = String((ownersClick.actions as { value: string }[])[0]?.value);
    // The owner's click with the value edited (another arguments hash): refused, nothing runs.
    const edited = blockActions(fake, {
      ts,
      user: OWNER,
      label: 'Approve',
      edit: { value: shown.replace(/[0-9a-f]{6}$/, '000000') },
    });
    await fake.interact(approve(STRANGER));
    await updated(fake, ts, 1);
    expect(lastUpdate(fake, ts)).toMatch(/^Refused: .*you are slack:U2/);
    await fake.interact(edited);
    await updated(fake, ts, 2);
    expect(lastUpdate(fake, ts)).toMatch(/^Refused: .*does not match/);
    expect(model.requests).toHaveLength(1);
    expect(await exists(marker)).toBe(false);

    await fake.interact(ownersClick);
    await updated(fake, ts, 3);
    expect(lastUpdate(fake, ts)).toContain(`Approved by slack:${OWNER}`);
    const answer = await fake.waitForCall(
      'chat.postMessage',
      (call) => call.args.text === 'The check ran: ok.',
      15_000,
    );
    expect(answer.args).toMatchObject({ channel: 'C1', thread_ts: '40.1' });
    const toolResult = JSON.parse(String(model.requests[1]?.messages.at(-1)?.content));
    expect(toolResult).toMatchObject({ ok: true, exitCode: 0, stdout: 'ok\n' });
    expect(await readFile(marker, 'utf8')).toBe('ran\n');

    // A second click (a replay of the owner's) is answered, and runs nothing again.
    await fake.interact(ownersClick);
    await updated(fake, ts, 4);
    expect(lastUpdate(fake, ts)).toContain('Already decided');
    expect(model.requests).toHaveLength(2);
    expect(await readFile(marker, 'utf8')).toBe('ran\n');
    expect(fake.badAcks).toEqual([]);
  }, 30_000);

  it('Socket Mode: the request names its buttons and /switchboard approve CODE, and that slash command approves it', async () => {
    const { fake, model } = await setup('socket');
    model.push({ toolCalls: [{ name: 'shell.exec', arguments: { command: 'echo ok' } }] });
    model.push({ text: 'Approved by slash command.' });
    await fake.deliver(mention('41.1', 'run it'));
    const ts = await requestIn(fake, '41.1');
    const request = fake.messages.get(ts)?.text ?? '';
    const code = /^Approval needed \(([A-Z0-9]+)\)/.exec(request)?.[1] ?? '';
    expect(code).not.toBe('');
    // Slack's client takes a bare `/approve` for an unknown slash command: the app's own one is named.
    expect(request).toContain(`the Approve or Deny button, or type /switchboard approve ${code}`);
    expect(request).toContain(`/switchboard deny ${code} [reason]`);
    expect(request).not.toMatch(/(^|[\s:])\/approve /m);
    // The "running shell.exec…" status line posted before the request does not stay behind it.
    const status = await fake.waitForCall(
      'chat.postMessage',
      (call) => call.args.thread_ts === '41.1' && /^running shell\.exec/.test(String(call.args.text)),
      15_000,
    );
    await expect
      .poll(() =>
        [...fake.messages.values()].filter((message) => message.threadTs === '41.1').map((m) => m.text),
      )
      .toEqual([request]);
    expect(fake.callsTo('chat.delete').map((call) => call.args.channel)).toEqual([status.args.channel]);
    await fake.command(slashCommand(fake, { user: OWNER, channel: 'C1', text: `approve ${code}` }));
    const answer = await fake.waitForCall(
      'chat.postMessage',
      (call) => call.args.text === 'Approved by slash command.',
      15_000,
    );
    expect(answer.args).toMatchObject({ channel: 'C1', thread_ts: '41.1' });
  }, 30_000);

  it('HTTP mode: the owner denies through a signed form POST; the model reads the denial, nothing runs', async () => {
    const { fake, model, gateway } = await setup('http');
    const events = `${gateway.url}/slack/events`;
    const marker = path.join(gateway.dir, 'data/workspaces/main/denied.txt');
    model.push({ toolCalls: [{ name: 'shell.exec', arguments: { command: 'echo ran > denied.txt' } }] });
    model.push({ text: 'Understood, I did not run it.' });
    const event = eventCallback(mention('50.1', 'run it'), 'EvApproval1');
    expect(await postSignedEvent(events, event, SIGNING_SECRET)).toBe(200);

    const ts = await requestIn(fake, '50.1');
    const deny = (user: string) => blockActions(fake, { ts, user, label: 'Deny' });
    const ownersClick = deny(OWNER);
    expect(await postSignedPayload(events, deny(STRANGER), SIGNING_SECRET)).toBe(200);
    await updated(fake, ts, 1);
    expect(lastUpdate(fake, ts)).toMatch(/^Refused: /);
    // Not Slack's signature: refused before anything reads it.
    expect(await postSignedPayload(events, ownersClick, 'not-the-secret')).toBe(401);
    expect(fake.callsTo('chat.update')).toHaveLength(1);

    expect(await postSignedPayload(events, ownersClick, SIGNING_SECRET)).toBe(200);
    await updated(fake, ts, 2);
    expect(lastUpdate(fake, ts)).toContain(`Denied by slack:${OWNER}`);
    const answer = await fake.waitForCall(
      'chat.postMessage',
      (call) => call.args.text === 'Understood, I did not run it.',
      15_000,
    );
    expect(answer.args).toMatchObject({ channel: 'C1', thread_ts: '50.1' });
    const toolResult = JSON.parse(String(model.requests[1]?.messages.at(-1)?.content));
    expect(toolResult).toMatchObject({ status: 'denied', by: `slack:${OWNER}` });
    expect(await exists(marker)).toBe(false);
  }, 30_000);

  it('a restart while the request is pending: the button posted before it still decides it, once', async () => {
    const { fake, model, gateway } = await setup('socket', { gateway: { drainTimeoutMs: 0 } });
    const marker = path.join(gateway.dir, 'data/workspaces/main/restarted.txt');
    const call = { toolCalls: [{ name: 'shell.exec', arguments: { command: 'echo ran >> restarted.txt' } }] };
    model.push(call);
    await fake.deliver(mention('60.1', 'run it across a restart'));
    const ts = await requestIn(fake, '60.1');
    const ownersClick = blockActions(fake, { ts, user: OWNER, label: 'Approve' });
    // The resumed turn asks again with the same call: it waits on the same request.
    model.push(call);
    model.push({ text: 'Ran after the restart.' });
    await gateway.restart();
    await model.waitForRequests(2);
    await expect.poll(() => fake.callsTo('apps.connections.open').length, { timeout: 10_000 }).toBe(2);
    await expect.poll(() => fake.sockets, { timeout: 10_000 }).toBe(1);

    await fake.interact(ownersClick);
    await updated(fake, ts, 1);
    expect(lastUpdate(fake, ts)).toContain(`Approved by slack:${OWNER}`);
    // The answer replaces the thread's tool status line (streaming), so it may be an update.
    const answer = await fake.waitForMessage((message) => message.text === 'Ran after the restart.', 15_000);
    expect(answer.threadTs).toBe('60.1');
    expect(await readFile(marker, 'utf8')).toBe('ran\n');
    // One request posted, one run of the command.
    const requests = fake.callsTo('chat.postMessage').filter((post) => post.args.blocks !== undefined);
    expect(requests).toHaveLength(1);
    await fake.interact(ownersClick);
    await updated(fake, ts, 2);
    expect(lastUpdate(fake, ts)).toContain('Already decided');
    expect(await readFile(marker, 'utf8')).toBe('ran\n');
  }, 40_000);

  it("post: direct: the request goes to the owner's DM, whose click lets the run answer in the thread", async () => {
    const { fake, model } = await setup('socket', {
      approvals: { tools: { 'shell.exec': 'ask' }, post: 'direct' },
    });
    model.push({ toolCalls: [{ name: 'shell.exec', arguments: { command: 'echo direct' } }] });
    model.push({ text: 'Done after your DM.' });
    await fake.deliver(mention('70.1', 'run it, ask me in private'));
    const call = await fake.waitForCall('chat.postMessage', (post) => post.args.blocks !== undefined, 15_000);
    expect(call.args.channel).toBe(`D${OWNER}`);
    expect(call.args.thread_ts).toBeUndefined();
    expect(fake.callsTo('conversations.open')[0]?.args.users).toBe(OWNER);
    let ts = '';
    await expect
      .poll(() => {
        ts = [...fake.messages.values()].find((message) => message.channel === `D${OWNER}`)?.ts ?? '';
        return ts;
      })
      .not.toBe('');
    await fake.interact(blockActions(fake, { ts, user: OWNER, label: 'Approve' }));
    await updated(fake, ts, 1);
    expect(fake.callsTo('chat.update')[0]?.args.channel).toBe(`D${OWNER}`);
    expect(lastUpdate(fake, ts)).toContain(`Approved by slack:${OWNER}`);
    // The answer replaces the thread's tool status line (streaming), so it may be an update.
    const answer = await fake.waitForMessage((message) => message.text === 'Done after your DM.', 15_000);
    expect(answer).toMatchObject({ channel: 'C1', threadTs: '70.1' });
  }, 30_000);
});
