import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/** What an owner's `/config …` in the web chat answers. */
async function reply(gateway: TestGateway, text: string): Promise<string> {
  const sent = await gateway.send(text);
  expect(sent.status).toBe(200);
  return sent.body.replies.at(-1).text as string;
}

describe('/config with hostile input', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ config: { agents: { main: { displayName: 'Main' } } } });
  });
  afterAll(async () => {
    await gateway.dispose();
  });

  it('refuses a patch with a __proto__ key, naming the key and where it is', async () => {
    const top = await reply(gateway, '/config patch {"__proto__": {"log": {"level": "debug"}}}');
    expect(top).toBe(
      'Refused: raw /__proto__: the key "__proto__" is not allowed (it would set the object\'s prototype, not a config value)',
    );
    const nested = await reply(gateway, '/config patch {"agents": {"main": {"__proto__": {"x": 1}}}}');
    expect(nested).toContain('raw /agents/main/__proto__: the key "__proto__" is not allowed');
    expect(`${top}${nested}`).not.toContain('duplicate keys');
  });

  it('refuses numbers JSON cannot hold (1e309, Infinity, NaN), naming where', async () => {
    const huge = await reply(gateway, '/config patch {"agentLoop": {"maxRounds": 1e309}}');
    expect(huge).toBe(
      'Refused: raw /agentLoop/maxRounds: the number is not finite (Infinity); JSON numbers must be finite',
    );
    const json5 = await reply(gateway, '/config patch {scheduler: {tickMs: NaN}}');
    expect(json5).toContain('raw /scheduler/tickMs: the number is not finite (NaN)');
    expect(`${huge}${json5}`).not.toContain('duplicate keys');
  });

  it('refuses a patch nested too deep, naming the limit and where it is passed', async () => {
    const deep = `/config patch {"agents": {"main": {"displayName": ${'['.repeat(5000)}${']'.repeat(5000)}}}}`;
    const answer = await reply(gateway, deep);
    expect(answer).toMatch(
      /^Refused: raw \/agents\/main\/displayName\/0\/0\/.*: nested deeper than 64 levels \(objects and arrays\)$/,
    );
  });

  it('/config get resolves only keys the config has, not inherited properties', async () => {
    for (const path of ['__proto__', 'constructor', 'toString', 'agents.main.__proto__']) {
      const answer = await reply(gateway, `/config get ${path}`);
      expect(answer, path).toMatch(
        new RegExp(`^Refused: Unknown config path: ${path.replace(/\./g, '\\.')}`),
      );
    }
    expect(await reply(gateway, '/config get agents.constructor')).toBe(
      `agents.constructor is not set in ${gateway.configPath} (its default applies).`,
    );
    expect(await reply(gateway, '/config get agents.main.displayName')).toContain('"Main"');
  });
});
