import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createSlackManifest } from '../../src/setup/slack-manifest.js';
import { killRunningChildren, runCli } from '../helpers/process.js';

// `switchboard slack manifest` and `switchboard discord invite` as an operator runs them: the built CLI.

afterEach(async () => {
  await killRunningChildren();
});

describe('the set-up commands', () => {
  it('print a Slack manifest in YAML, Socket Mode by default', async () => {
    const result = await runCli(['slack', 'manifest']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(parse(result.stdout)).toEqual(
      createSlackManifest({ mode: 'socket', name: 'Switchboard', command: '/switchboard' }),
    );
  });

  it('print an HTTP-mode manifest for the given address, name and command', async () => {
    const result = await runCli([
      'slack',
      'manifest',
      '--mode',
      'http',
      '--name',
      'Ops Bot',
      '--command',
      '/ops',
      '--url',
      'https://gw.example.org',
    ]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const manifest = parse(result.stdout);
    expect(manifest).toEqual(
      createSlackManifest({ mode: 'http', name: 'Ops Bot', command: '/ops', url: 'https://gw.example.org' }),
    );
    expect(manifest.settings.event_subscriptions.request_url).toBe('https://gw.example.org/slack/events');
  });

  it('refuse a bad mode, command or address with exit code 1 and nothing on stdout', async () => {
    for (const args of [
      ['--mode', 'rtm'],
      ['--command', 'switchboard'],
      ['--url', 'http://plain.example.org'],
    ]) {
      const result = await runCli(['slack', 'manifest', ...args]);
      expect(result, args.join(' ')).toMatchObject({ code: 1, stdout: '' });
      expect(result.stderr).toMatch(/^--(mode|command|url) must/);
    }
  });

  it('print the Discord invite URL, its permissions and the intent to switch on', async () => {
    const result = await runCli(['discord', 'invite', '--client-id', '123456789012345678']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const [url, ...rest] = result.stdout.split('\n');
    expect(url).toMatch(
      /^https:\/\/discord\.com\/oauth2\/authorize\?client_id=123456789012345678&scope=bot%20applications\.commands&permissions=\d+/,
    );
    expect(rest.join('\n')).toMatch(/SendMessagesInThreads/);
    expect(rest.join('\n')).toMatch(/MessageContent: privileged, switch it on/);
    const bad = await runCli(['discord', 'invite', '--client-id', 'my-bot']);
    expect(bad).toMatchObject({ code: 1, stdout: '' });
    // Without the application's id: what to grant still, and what is missing for the URL.
    const bare = await runCli(['discord', 'invite']);
    expect(bare.code).toBe(1);
    expect(bare.stdout).toMatch(/^Scopes: bot, applications\.commands\nPermissions/);
    expect(bare.stderr).toMatch(/needs --client-id/);
  });
});
