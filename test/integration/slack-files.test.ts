import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeFileHost, startFakeFileHost } from '../fakes/fake-file-host.js';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { type FakeSlack, startFakeSlack } from '../fakes/fake-slack.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * Files posted in Slack, through the whole gateway: the real Bolt (Socket Mode) against the fake
 * Slack, its `url_private` served by a fake file host that wants the bot token, the real tool
 * loop against a fake OpenAI server whose requests show what the model saw.
 */

let gateway: TestGateway | undefined;
let fake: FakeSlack | undefined;
let model: FakeModelServer | undefined;
let host: FakeFileHost | undefined;
afterEach(async () => {
  await gateway?.dispose();
  await fake?.close();
  await model?.close();
  await host?.close();
  gateway = fake = model = host = undefined;
});

const BOT_TOKEN = 'xoxb-files-test-4242';
/** The 8-byte PNG signature and an IHDR start: enough for a file that is recognisably a PNG. */
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

const HOSTILE = fileURLToPath(new URL('../fixtures/runner-toolpacks/hostile', import.meta.url));

async function setup(
  hostToken: string,
  agent: Record<string, unknown> = {},
  tools: Record<string, unknown> = {},
) {
  host = await startFakeFileHost({ token: hostToken });
  fake = await startFakeSlack({ echoPosts: true });
  model = await startFakeOpenAIServer();
  gateway = await startTestGateway({
    config: {
      channels: {
        slack: { botToken: BOT_TOKEN, appToken: 'xapp-files-test', apiUrl: fake.apiUrl, dmPolicy: 'open' },
      },
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-files-01' } },
      agents: { main: { model: 'fake', ...agent } },
      tools,
    },
  });
  await fake.connected();
  return { host, fake, model, gateway };
}

const fileShare = (ts: string, text: string, files: Record<string, unknown>[]) => ({
  type: 'message',
  subtype: 'file_share',
  channel: 'C1',
  channel_type: 'channel',
  user: 'U1',
  text: `<@UBOT> ${text}`,
  ts,
  files,
});

/** Resolves once one of the bot's messages reads `text` (posted, or a streamed placeholder updated to it). */
async function shown(fake: FakeSlack, text: string): Promise<void> {
  await expect
    .poll(() => [...fake.messages.values()].some((message) => message.text === text), { timeout: 10_000 })
    .toBe(true);
}

/** The last user message of a model request, as the OpenAI wire format has it. */
const lastUser = (request: any) => request.messages.filter((message: any) => message.role === 'user').at(-1);

describe('files posted in Slack', () => {
  it("saves a PNG posted with a mention in its sender's upload folder and shows it to the model as an image part", async () => {
    const { host, fake, model, gateway } = await setup(BOT_TOKEN);
    host.add('chart.png', PNG, 'image/png');
    model.push({ text: 'a chart' });
    await fake.deliver(
      fileShare('50.1', 'what is this?', [
        {
          name: 'chart.png',
          mimetype: 'image/png',
          size: PNG.byteLength,
          url_private_download: host.url('chart.png'),
        },
      ]),
    );
    await shown(fake, 'a chart');

    // Saved in U1's folder for channel C1, outside the workspace; U1's turns in C1 see it as /uploads/….
    const saved = path.join(gateway.dir, 'data/uploads/main/slack:U1/slack-C1/slack-50.1/chart.png');
    expect(await readFile(saved)).toEqual(PNG);
    expect(host.downloads).toEqual([{ name: 'chart.png', authorization: `Bearer ${BOT_TOKEN}` }]);
    const user = lastUser(model.requests[0]);
    expect(user.content[0].text).toContain('what is this?');
    expect(user.content[0].text).toContain(
      `[file chart.png (image/png, ${PNG.byteLength} bytes) saved at /uploads/slack-50.1/chart.png]`,
    );
    expect(user.content[1]).toEqual({
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` },
    });
    // The token never reaches the model.
    expect(JSON.stringify(model.requests)).not.toContain(BOT_TOKEN);
  });

  it('names the missing files:read scope when Slack answers with its sign-in page, and saves nothing', async () => {
    const { host, fake, model, gateway } = await setup('xoxb-another-token');
    host.add('notes.txt', Buffer.from('secret plans'), 'text/plain');
    model.push({ text: 'I could not read it' });
    await fake.deliver(
      fileShare('51.1', 'read this', [
        { name: 'notes.txt', mimetype: 'text/plain', size: 12, url_private_download: host.url('notes.txt') },
      ]),
    );
    await shown(fake, 'I could not read it');

    const user = lastUser(model.requests[0]);
    expect(user.content).toContain('[file notes.txt (text/plain) was not saved: Slack refused the download');
    expect(user.content).toContain('files:read scope');
    await expect(
      readdir(path.join(gateway.dir, 'data'), { recursive: true }).then((entries) =>
        entries.filter((entry) => entry.endsWith('notes.txt')),
      ),
    ).resolves.toEqual([]);
    expect(gateway.logLines.some((line) => line.includes('slack file not saved'))).toBe(true);
    expect(gateway.logLines.join('\n')).not.toContain(BOT_TOKEN);
  });

  it('uploads a workspace file to the thread with chat.attach (files.uploadV2)', async () => {
    const { fake, model, gateway } = await setup(BOT_TOKEN);
    const workspace = path.join(gateway.dir, 'data/workspaces/main');
    await mkdir(workspace, { recursive: true });
    await writeFile(path.join(workspace, 'report.txt'), 'uptime 99.9%\n');
    model.push({
      toolCalls: [{ name: 'chat.attach', arguments: { path: 'report.txt', comment: 'the report' } }],
    });
    model.push({ text: 'sent it' });
    await fake.deliver({
      type: 'message',
      channel: 'C1',
      channel_type: 'channel',
      user: 'U1',
      text: '<@UBOT> send me the report',
      ts: '52.1',
    });
    await shown(fake, 'sent it');

    const complete = fake.callsTo('files.completeUploadExternal');
    expect(complete).toHaveLength(1);
    expect(complete[0]?.args).toMatchObject({
      channel_id: 'C1',
      thread_ts: '52.1',
      initial_comment: 'the report',
    });
    const [fileId, upload] = [...fake.uploads.entries()][0] ?? [];
    expect(JSON.parse(complete[0]?.args.files ?? '[]')[0].id).toBe(fileId);
    expect(upload?.filename).toBe('report.txt');
    expect(upload?.body.toString('utf8')).toContain('uptime 99.9%');
    const result = model.requests[1].messages.find((message: any) => message.role === 'tool');
    expect(JSON.parse(result.content)).toMatchObject({ ok: true, name: 'report.txt', size: 13 });
  });

  it('refuses chat.attach of a path outside the workspace', async () => {
    const { fake, model } = await setup(BOT_TOKEN);
    model.push({
      toolCalls: [{ name: 'chat.attach', arguments: { path: '/workspace/../../gateway.jsonc' } }],
    });
    model.push({ text: 'could not' });
    await fake.deliver({
      type: 'message',
      channel: 'C1',
      channel_type: 'channel',
      user: 'U1',
      text: '<@UBOT> leak',
      ts: '53.1',
    });
    await shown(fake, 'could not');
    expect(fake.callsTo('files.getUploadURLExternal')).toHaveLength(0);
    const result = model.requests[1].messages.find((message: any) => message.role === 'tool');
    expect(JSON.parse(result.content)).toMatchObject({ ok: false });
  });

  it("a DM's file cannot be read in another person's turn: not by file.read, not by a toolpack runner", async () => {
    const { host, fake, model, gateway } = await setup(
      BOT_TOKEN,
      { tools: ['file.*', 'hostile.*'] },
      { toolpacks: ['file', { path: HOSTILE, id: 'hostile' }] },
    );
    host.add('diary.txt', Buffer.from('alice only'), 'text/plain');
    model.push({ text: 'kept it' });
    await fake.deliver({
      type: 'message',
      subtype: 'file_share',
      channel: 'DALICE',
      channel_type: 'im',
      user: 'UALICE',
      text: 'keep this',
      ts: '60.1',
      files: [
        { name: 'diary.txt', mimetype: 'text/plain', size: 10, url_private_download: host.url('diary.txt') },
      ],
    });
    await shown(fake, 'kept it');
    const told = /saved at (\S+)\]/.exec(JSON.stringify(lastUser(model.requests[0]).content))?.[1] ?? '';
    expect(told).toMatch(/diary\.txt$/);
    const entries = await readdir(path.join(gateway.dir, 'data'), { recursive: true });
    const hostFile = entries.find((entry) => entry.endsWith('diary.txt'));
    expect(hostFile).toBeDefined();
    // Bob, in a channel, asks the agent: its model tries the path Alice's turn was told, and the host file.
    model.push({
      toolCalls: [
        { id: 'tool', name: 'file.read', arguments: { path: told } },
        {
          id: 'runner',
          name: 'hostile.read',
          arguments: { path: path.join(gateway.dir, 'data', hostFile ?? '') },
        },
      ],
    });
    model.push({ text: 'found nothing' });
    await fake.deliver({
      type: 'message',
      channel: 'C1',
      channel_type: 'channel',
      user: 'UBOB',
      text: "<@UBOT> what is in alice's diary?",
      ts: '61.1',
    });
    await shown(fake, 'found nothing');
    const results = model.requests[2].messages.filter((message: any) => message.role === 'tool');
    expect(results).toHaveLength(2);
    expect(JSON.stringify(results)).not.toContain('alice only');
  });
});
