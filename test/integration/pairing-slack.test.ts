import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import type { FakeSlack } from '../fakes/fake-slack.js';
import { startGatewayForTest, startSlackForTest } from '../helpers/channels.js';
import type { TestGateway } from '../helpers/gateway.js';
import { pollUntil } from '../helpers/process.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * Issue 34 item 4 on Slack (pairing.test.ts is Discord's): with `channels.slack.pairing`, an
 * unknown sender's direct message gets a pairing code and nothing else (no inbox entry, no
 * session, no model call); an owner's `/pair approve CODE role` adds the person through the config
 * editor, audited with its diff; 20 attempts in a minute are limited. Through the real Bolt
 * client in Socket Mode against the fake Slack.
 */

const cleanups = cleanupAfterEach();
const CODE = /([A-Z2-9]{4}-[A-Z2-9]{4})/;

async function startRig() {
  const slack = await startSlackForTest(cleanups, { echoPosts: true });
  const model = await startFakeOpenAIServer();
  cleanups.push(() => model.close());
  const gateway = await startGatewayForTest(cleanups, {
    config: {
      channels: {
        slack: {
          botToken: 'xoxb-pair',
          appToken: 'xapp-pair',
          apiUrl: slack.apiUrl,
          stream: false,
          pairing: true,
        },
      },
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-pair-01' } },
      agents: { main: { model: 'fake' } },
    },
  });
  await slack.connected();
  return { slack, model, gateway };
}

let ts = 500;
/** `text` in `user`'s direct messages with the bot; resolves with the gateway's next post there. */
async function dm(slack: FakeSlack, user: string, text: string): Promise<string> {
  ts += 1;
  const before = slack.callsTo('chat.postMessage').length;
  await slack.deliver({
    type: 'message',
    channel: `D${user}`,
    channel_type: 'im',
    user,
    text,
    ts: `${ts}.1`,
  });
  const call = await slack.waitForCall(
    'chat.postMessage',
    (candidate) =>
      candidate.args.channel === `D${user}` && slack.callsTo('chat.postMessage').indexOf(candidate) >= before,
    15_000,
  );
  return String(call.args.text);
}

async function waitForRestarts(gateway: TestGateway, count: number): Promise<void> {
  await expect
    .poll(() => gateway.host.restarts === count && gateway.host.loaded !== undefined, { timeout: 15_000 })
    .toBe(true);
}

describe('pairing on Slack', () => {
  it('answers an unknown DM with a code and nothing else; an owner’s approval adds the person with the role', async () => {
    const { slack, model, gateway } = await startRig();
    const first = await dm(slack, 'U9', 'hello, can I use this?');
    expect(first).toMatch(/does not know you yet/);
    const code = CODE.exec(first)?.[1];
    if (code === undefined) throw new Error(`no code in: ${first}`);
    // A command is no way around it: the same code again.
    expect(await dm(slack, 'U9', '/whoami')).toBe(first);
    expect(model.requests).toHaveLength(0);
    // No session and no transcript: an inbox entry would have made both (its turn writes the entry).
    const sessions = await gateway.request('GET', '/api/sessions');
    expect(JSON.stringify(sessions.body.sessions)).not.toContain('U9');
    const transcript = await gateway.request('GET', '/api/sessions/agent:main:slack:direct:U9/transcript');
    expect(transcript.status).toBe(404);

    const waiting = await gateway.request('GET', '/api/people');
    expect(waiting.body.pairing).toEqual([expect.objectContaining({ identity: 'slack:U9' })]);
    expect((await gateway.send('/pair approve ABCD-EFGH member')).body.replies[0].text).toMatch(/not valid/);

    const approved = await gateway.send(`/pair approve ${code} member`);
    expect(approved.body.replies[0].text).toMatch(/^Paired: slack:U9 is person slack-u9 \(role member\)/);
    await waitForRestarts(gateway, 1);
    const file = JSON.parse((await readFile(gateway.configPath, 'utf8')).replace(/^\/\/.*$/gm, ''));
    expect(file.people['slack-u9']).toEqual({ role: 'member', identities: ['slack:U9'] });
    const history = await gateway.request('GET', '/api/config/history');
    expect(history.body.changes.at(-1)).toMatchObject({ actor: 'webchat:local' });
    const change = await gateway.request('GET', `/api/config/history/${history.body.changes.at(-1).number}`);
    expect(change.body.diff).toContain('slack:U9');

    // Now heard, with the role: the model answers, and /whoami names the person.
    await pollUntil('the Slack reconnection', () => (slack.sockets > 0 ? true : undefined));
    expect(await dm(slack, 'U9', 'hello again')).toBe('ok');
    expect(model.requests).toHaveLength(1);
    const after = await gateway.request('GET', '/api/sessions/agent:main:slack:direct:U9/transcript');
    expect(after.status).toBe(200);
    expect(await dm(slack, 'U9', '/whoami')).toMatch(/^You are slack-u9 \(slack:U9\), role member/);
    // The code was used up.
    expect((await gateway.send(`/pair approve ${code}`)).body.replies[0].text).toMatch(/not valid/);
  }, 60_000);

  it('limits 20 pairing attempts in a minute from one user, and answers the flood once', async () => {
    const { slack, model, gateway } = await startRig();
    for (let attempt = 0; attempt < 20; attempt += 1)
      await slack.deliver({
        type: 'message',
        channel: 'DU8',
        channel_type: 'im',
        user: 'U8',
        text: `let me in ${attempt}`,
        ts: `${700 + attempt}.1`,
      });
    const limited = () => gateway.logLines.filter((line) => line.includes('over the rate limit')).length;
    await pollUntil('15 attempts over the limit', () => (limited() === 15 ? true : undefined));
    const replies = await pollUntil('the six answers', () => {
      const posted = slack
        .callsTo('chat.postMessage')
        .filter((call) => call.args.channel === 'DU8')
        .map((call) => String(call.args.text));
      return posted.length >= 6 ? posted : undefined;
    });
    expect(replies).toHaveLength(6);
    expect(new Set(replies.slice(0, 5)).size).toBe(1);
    expect(replies[5]).toMatch(/^Too many code requests/);
    expect(model.requests).toHaveLength(0);
    const people = await gateway.request('GET', '/api/people');
    expect(people.body.pairing).toHaveLength(1);
  }, 60_000);
});
