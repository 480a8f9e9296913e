import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startRedisServer } from '../helpers/redis-server.js';

let gateway: TestGateway | undefined;

afterEach(async () => {
  await gateway?.dispose();
  gateway = undefined;
});

const readyLines = (target: TestGateway) =>
  target.logLines.filter((line) => line.includes('Switchboard ready'));

describe('secrets in logs', () => {
  it('shows a generated HTTP token once on a terminal, in the first ready line, and never again', async () => {
    // `switchboard start` passes stdout's isTTY; the e2e token-link test runs both cases as processes.
    gateway = await startTestGateway({ showTokenLink: true, config: { http: { port: 0 } } });
    const { token } = gateway;
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect(readyLines(gateway)[0]).toContain(`/?token=${token}`);

    await gateway.restart();
    await gateway.send('/whoami');
    const [, second] = readyLines(gateway);
    expect(second).toContain('sign in with /?token=<token from');
    expect(second).toContain('http-token');
    const afterFirst = gateway.logLines.slice(gateway.logLines.indexOf(readyLines(gateway)[0] ?? '') + 1);
    expect(afterFirst.join('')).not.toContain(token);
  });

  it('never logs a generated HTTP token when the log is not a terminal: the ready line names the file', async () => {
    gateway = await startTestGateway({ config: { http: { port: 0 } } });
    expect(gateway.logLines.join('')).not.toContain(gateway.token);
    expect(readyLines(gateway)[0]).toContain('sign in with /?token=<token from');
    expect(readyLines(gateway)[0]).toContain('http-token');
  });

  it('never logs or stores a configured token or API key, even when a message carries one', async () => {
    const apiKey = 'sk-test-secret-value-42';
    gateway = await startTestGateway({
      config: {
        http: { port: 0, token: 'configured-token-abcdefghij' },
        models: { default: { provider: 'openai', model: 'gpt-test', apiKey } },
        agents: { main: { model: 'default' } },
      },
    });
    const sent = await gateway.send(`my key is ${apiKey}`);
    await gateway.send('/status');
    const transcript = await gateway.request('GET', `/api/sessions/${sent.body.sessionKey}/transcript`);
    expect(transcript.body.entries[0].text).toBe('my key is [REDACTED]');
    await gateway.restart();
    const output = gateway.logLines.join('');
    expect(output).toContain('Switchboard ready');
    expect(output).not.toContain('configured-token-abcdefghij');
    expect(output).not.toContain(apiKey);
    expect(readyLines(gateway)[0]).toContain('sign in with /?token=<token from http.token>');
  });

  it('keeps a Redis password in store.url secret: redacted in /config get, never logged', async () => {
    const password = 'redis-secret-0123456789';
    const redis = await startRedisServer({ requirepass: password });
    try {
      gateway = await startTestGateway({
        config: {
          http: { port: 0, token: 'configured-token-abcdefghij' },
          store: { url: `redis://:${password}@127.0.0.1:${redis.port}` },
        },
      });
      const shown = await gateway.send('/config get store');
      expect(shown.status).toBe(200);
      const text = shown.body.replies.map((reply: { text: string }) => reply.text).join('\n');
      expect(text).toContain('__SWITCHBOARD_REDACTED__');
      expect(text).not.toContain(password);
      const sent = await gateway.send(`the store password is ${password}`);
      const transcript = await gateway.request('GET', `/api/sessions/${sent.body.sessionKey}/transcript`);
      expect(JSON.stringify(transcript.body)).not.toContain(password);
      await gateway.restart();
      expect(gateway.logLines.join('')).toContain(`redis://127.0.0.1:${redis.port}`);
      expect(gateway.logLines.join('')).not.toContain(password);
    } finally {
      await gateway?.dispose();
      gateway = undefined;
      await redis.stop();
    }
  });
});
