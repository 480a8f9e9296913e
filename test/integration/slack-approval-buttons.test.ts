import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import type {
  DeliveryRoute,
  DispatchResult,
  InboundMessage,
  OutboundMessage,
} from '../../src/base/messages/index.js';
import type { SlackAdapter, SlackConfig } from '../../src/surfaces/channels/slack/index.js';
import { type FakeSlack, startFakeSlack } from '../fakes/fake-slack.js';
import { blockActions, buttonsOf, postSignedPayload } from '../fakes/fake-slack-actions.js';
import { createTestSlackAdapter } from '../fakes/slack-test-adapter.js';

const SECRET = 'signing-secret-for-tests';
const THREAD = { channel: 'slack', chatType: 'channel', chatId: 'C1', threadId: '10.1' } as const;
const REQUEST: OutboundMessage = {
  id: 'req1',
  text: 'Run shell.exec `echo <!channel> & done`?\n/approve K7Q2XD or /deny K7Q2XD [reason]',
  actions: [
    { label: 'Approve', value: 'approval:K7Q2XD:approve:h1', style: 'primary' },
    { label: 'Deny', value: 'approval:K7Q2XD:deny:h1', style: 'danger' },
  ],
};

interface Harness {
  fake: FakeSlack;
  adapter: SlackAdapter;
  /** What the stand-in router was handed, in order. */
  clicks: InboundMessage[];
  /** Lets the held dispatches answer (each click waits for it). */
  release(): void;
}

let current: Harness | undefined;

afterEach(async () => {
  current?.release();
  await current?.adapter.stop();
  await current?.fake.close();
  current = undefined;
});

/**
 * The real Bolt against the fake Slack. The stand-in router answers a click with `answer(click)`
 * only once `release()` is called, so a test sees what Slack got while the dispatch is pending.
 */
async function setup(
  config: Partial<SlackConfig> = {},
  answer: (click: InboundMessage) => DispatchResult = (click) => ({
    sessionKey: 'test',
    replies: [{ id: 'a1', text: `Approved by ${click.senderId} — running shell.exec` }],
  }),
) {
  const fake = await startFakeSlack();
  const adapter = createTestSlackAdapter(fake, { signingSecret: SECRET, ...config });
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const clicks: InboundMessage[] = [];
  await adapter.start(async (message) => {
    clicks.push(message);
    await released;
    return answer(message);
  });
  current = { fake, adapter, clicks, release };
  return current;
}

/** Posts REQUEST in the thread and returns the `ts` Slack gave it. */
async function postRequest({ fake, adapter }: Harness, route: DeliveryRoute = THREAD): Promise<string> {
  await adapter.send(route, REQUEST);
  const call = await fake.waitForCall('chat.postMessage', (candidate) => candidate.args.blocks !== undefined);
  const ts = [...fake.messages.values()].find((message) => message.text === call.args.text)?.ts;
  if (ts === undefined) throw new Error('request not kept by the fake');
  return ts;
}

async function serveEvents(adapter: SlackAdapter): Promise<string> {
  const listener = adapter.eventsListener;
  if (listener === undefined) throw new Error('no events listener in HTTP mode');
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
}

const blocksOfCall = (args: Record<string, string>) =>
  JSON.parse(args.blocks ?? '[]') as Record<string, unknown>[];

describe('Slack buttons: rendering', () => {
  it('posts a reply with actions as a section and an actions block of distinct buttons, text as the fallback', async () => {
    const harness = await setup();
    await postRequest(harness);
    const call = harness.fake.callsTo('chat.postMessage')[0];
    expect(call?.args).toMatchObject({ channel: 'C1', thread_ts: '10.1' });
    // Shown as written: `<!channel>` would ping everyone, `&` would start an entity.
    const shown =
      'Run shell.exec `echo &lt;!channel&gt; &amp; done`?\n/approve K7Q2XD or /deny K7Q2XD [reason]';
    expect(call?.args.text).toBe(shown);
    expect(blocksOfCall(call?.args ?? {})).toEqual([
      { type: 'section', text: { type: 'mrkdwn', text: shown } },
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            action_id: 'switchboard.reply.0',
            text: { type: 'plain_text', text: 'Approve', emoji: true },
            value: 'approval:K7Q2XD:approve:h1',
            style: 'primary',
          },
          {
            type: 'button',
            action_id: 'switchboard.reply.1',
            text: { type: 'plain_text', text: 'Deny', emoji: true },
            value: 'approval:K7Q2XD:deny:h1',
            style: 'danger',
          },
        ],
      },
    ]);
  });

  it("puts the buttons under the last part of a long reply, in sections within Slack's 3000", async () => {
    const { fake, adapter } = await setup();
    // Ends with one line that escaping makes longer than a section, with no space to cut at.
    const lines = Array.from({ length: 90 }, (_, index) => `${index} ${'<'.repeat(50)}`);
    const long = [...lines, `x${'<'.repeat(1000)}`].join('\n');
    const actions = [
      { label: 'Approve', value: 'v1' },
      { label: 'x'.repeat(90), value: 'v2' },
    ];
    await adapter.send(THREAD, { id: 'r1', text: long, actions });
    await expect.poll(() => fake.callsTo('chat.postMessage').length).toBe(2);
    const [first, last] = fake.callsTo('chat.postMessage');
    expect(first?.args.blocks).toBeUndefined();
    const blocks = blocksOfCall(last?.args ?? {});
    const sections = blocks.filter((block) => block.type === 'section');
    expect(sections.length).toBeGreaterThan(1);
    for (const section of sections)
      expect((section.text as { text: string }).text.length).toBeLessThanOrEqual(3000);
    const shown = [first?.args.text, ...sections.map((section) => (section.text as { text: string }).text)];
    // No cut inside an entity: every `&` starts a whole `&lt;`.
    for (const part of shown.slice(1)) expect(part).not.toMatch(/&(?!lt;)/);
    expect(shown.join('').replaceAll('&lt;', '<').replace(/\s+/g, '')).toBe(long.replace(/\s+/g, ''));
    const buttons = (blocks.at(-1)?.elements ?? []) as { text: { text: string }; value: string }[];
    expect(buttons.map((button) => [button.text.text.length, button.value])).toEqual([
      [7, 'v1'],
      [75, 'v2'],
    ]);
  });

  it("drops code fences' languages, which Slack's mrkdwn would show as a line", async () => {
    const { fake, adapter } = await setup();
    const text = 'Arguments:\n```json\n{ "command": "ls" }\n```\nChange:\n  ```diff\n-a\n+b\n  ```';
    await adapter.send(THREAD, { id: 'r1', text, actions: [{ label: 'Approve', value: 'v1' }] });
    const call = await fake.waitForCall('chat.postMessage');
    const section = blocksOfCall(call.args)[0] as { text: { text: string } };
    expect(section.text.text).toBe(
      'Arguments:\n```\n{ "command": "ls" }\n```\nChange:\n  ```\n-a\n+b\n  ```',
    );
  });

  it('posts a reply without actions as plain text, as before', async () => {
    const { fake, adapter } = await setup();
    await adapter.send(THREAD, { id: 'r1', text: 'no <b>buttons</b> here' });
    const call = await fake.waitForCall('chat.postMessage');
    expect(call.args.text).toBe('no <b>buttons</b> here');
    expect(call.args.blocks).toBeUndefined();
  });
});

describe('Slack buttons: a click in Socket Mode', () => {
  it('acks before the dispatch resolves, dispatches with the clicker and the value, then updates the message', async () => {
    const harness = await setup();
    const { fake, clicks, release } = harness;
    const ts = await postRequest(harness);
    // Resolves when the client acked the envelope: the dispatch is still held.
    await fake.interact(blockActions(fake, { ts, user: 'U1', label: 'Approve' }));
    await expect.poll(() => clicks.length).toBe(1);
    expect(fake.callsTo('chat.update')).toEqual([]);
    expect(clicks[0]).toEqual({
      channel: 'slack',
      chatType: 'channel',
      chatId: 'C1',
      threadId: '10.1',
      senderId: 'slack:U1',
      text: '',
      messageId: expect.stringMatching(new RegExp(`^${ts.replace('.', '\\.')}:`)),
      teamId: 'T1',
      action: 'approval:K7Q2XD:approve:h1',
    });
    release();
    const update = await fake.waitForCall('chat.update');
    expect(update.args).toMatchObject({
      channel: 'C1',
      ts,
      text: 'Approved by slack:U1 — running shell.exec',
    });
    const blocks = blocksOfCall(update.args);
    expect(blocks.map((block) => block.type)).toEqual(['section', 'section']);
    expect(blocks[1]).toEqual({
      type: 'section',
      text: { type: 'mrkdwn', text: 'Approved by slack:U1 — running shell.exec' },
    });
    await expect.poll(() => buttonsOf(fake, ts)).toEqual([]);
    expect(fake.badAcks).toEqual([]);
  });

  it('passes an edited value on unchanged (the router refuses it) and keeps buttons the answer carries', async () => {
    const harness = await setup({}, (click) => ({
      sessionKey: 'test',
      replies: [
        {
          id: 'a1',
          text: `Refused: ${click.senderId} is not an approver`,
          ...(REQUEST.actions && { actions: REQUEST.actions }),
        },
      ],
    }));
    const { fake, clicks, release } = harness;
    release();
    const ts = await postRequest(harness);
    const forged = blockActions(fake, {
      ts,
      user: 'U2',
      label: 'Approve',
      edit: { value: 'approval:K7Q2XD:approve:forged' },
    });
    await fake.interact(forged);
    const update = await fake.waitForCall('chat.update');
    expect(clicks.map((click) => [click.senderId, click.action])).toEqual([
      ['slack:U2', 'approval:K7Q2XD:approve:forged'],
    ]);
    expect(update.args.text).toBe('Refused: slack:U2 is not an approver');
    // The request stays, the answer follows it, and the answer's buttons stay clickable.
    expect(blocksOfCall(update.args).map((block) => block.type)).toEqual(['section', 'section', 'actions']);
    await expect.poll(() => fake.messages.get(ts)?.text).toBe('Refused: slack:U2 is not an approver');
    expect(buttonsOf(fake, ts).map((button) => button.text.text)).toEqual(['Approve', 'Deny']);
  });

  it('dispatches a click in a DM as a direct message from the clicker', async () => {
    const harness = await setup();
    harness.release();
    const ts = await postRequest(harness, { channel: 'slack', chatType: 'direct', chatId: 'U1' });
    await harness.fake.interact(blockActions(harness.fake, { ts, user: 'U1', label: 'Deny' }));
    await harness.fake.waitForCall('chat.update', (call) => call.args.channel === 'DU1');
    expect(harness.clicks[0]).toMatchObject({ chatType: 'direct', chatId: 'U1', senderId: 'slack:U1' });
    expect(harness.clicks[0]?.threadId).toBeUndefined();
  });

  it('answers a malformed payload and a failed dispatch to the clicker only, and goes on', async () => {
    let fail = true;
    const harness = await setup({}, () => {
      if (fail) throw new Error('router down');
      return { sessionKey: 'test', replies: [{ id: 'a1', text: 'Denied by slack:U1' }] };
    });
    const { fake, clicks, release } = harness;
    release();
    const ts = await postRequest(harness);
    const noValue = blockActions(fake, { ts, user: 'U1', label: 'Deny', edit: { value: undefined } });
    await fake.interact(noValue);
    const unreadable = await fake.waitForCall('chat.postEphemeral');
    expect(unreadable.args).toMatchObject({ channel: 'C1', user: 'U1', thread_ts: '10.1' });
    expect(unreadable.args.text).toContain('could not be read (not a button with a value)');
    const noMessage = blockActions(fake, { ts, user: 'U1', label: 'Deny' });
    delete noMessage.message;
    delete noMessage.container;
    await fake.interact(noMessage);
    await expect.poll(() => fake.callsTo('chat.postEphemeral').length).toBe(2);
    // A button the bot never posted is acknowledged and answered too (not left for Slack to time out).
    const foreign = blockActions(fake, {
      ts,
      user: 'U1',
      label: 'Deny',
      edit: { action_id: 'other.app.button' },
    });
    await fake.interact(foreign);
    await expect.poll(() => fake.callsTo('chat.postEphemeral').length).toBe(3);
    expect(fake.callsTo('chat.postEphemeral')[2]?.args.text).toContain('(not a button of this gateway)');
    expect(clicks).toEqual([]);

    await fake.interact(blockActions(fake, { ts, user: 'U1', label: 'Deny' }));
    await expect.poll(() => fake.callsTo('chat.postEphemeral').length).toBe(4);
    expect(fake.callsTo('chat.postEphemeral')[3]?.args.text).toContain(
      'could not be handled; nothing changed',
    );
    expect(fake.callsTo('chat.update')).toEqual([]);
    fail = false;
    await fake.interact(blockActions(fake, { ts, user: 'U1', label: 'Deny' }));
    expect((await fake.waitForCall('chat.update')).args.text).toBe('Denied by slack:U1');
    expect(clicks.map((click) => click.action)).toEqual([
      'approval:K7Q2XD:deny:h1',
      'approval:K7Q2XD:deny:h1',
    ]);
    expect(fake.badAcks).toEqual([]);
  });

  it('tells the clicker the answer when the message cannot be updated (deleted meanwhile)', async () => {
    const harness = await setup();
    const { fake, clicks, release } = harness;
    release();
    const ts = await postRequest(harness);
    fake.failFor('chat.update', 'C1', 'message_not_found');
    await fake.interact(blockActions(fake, { ts, user: 'U1', label: 'Approve' }));
    const told = await fake.waitForCall('chat.postEphemeral');
    expect(told.args).toMatchObject({
      channel: 'C1',
      user: 'U1',
      thread_ts: '10.1',
      text: 'Approved by slack:U1 — running shell.exec',
    });
    expect(fake.callsTo('chat.update')).toHaveLength(1);
    expect(clicks).toHaveLength(1);
  });
});

describe('Slack buttons: a click in HTTP mode', () => {
  it('answers 200 before the dispatch resolves, updates the message, and refuses a bad signature', async () => {
    const harness = await setup({ mode: 'http', appToken: undefined });
    const { fake, adapter, clicks, release } = harness;
    const url = await serveEvents(adapter);
    const ts = await postRequest(harness);
    const payload = blockActions(fake, { ts, user: 'U1', label: 'Approve' });
    expect(await postSignedPayload(url, payload, SECRET, { signature: 'v0=deadbeef' })).toBe(401);
    expect(await postSignedPayload(url, payload, 'another-secret')).toBe(401);
    // The 200 comes while the dispatch is still held.
    expect(await postSignedPayload(url, payload, SECRET)).toBe(200);
    await expect.poll(() => clicks.length).toBe(1);
    expect(fake.callsTo('chat.update')).toEqual([]);
    expect(clicks[0]).toMatchObject({
      senderId: 'slack:U1',
      action: 'approval:K7Q2XD:approve:h1',
      threadId: '10.1',
    });
    release();
    const update = await fake.waitForCall('chat.update');
    expect(update.args).toMatchObject({
      channel: 'C1',
      ts,
      text: 'Approved by slack:U1 — running shell.exec',
    });
    await expect.poll(() => buttonsOf(fake, ts)).toEqual([]);
    expect(clicks).toHaveLength(1);
  });
});
