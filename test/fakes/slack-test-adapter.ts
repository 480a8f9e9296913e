import pino from 'pino';
import type { ChannelMemory } from '../../src/surfaces/channels/index.js';
import {
  createSlackAdapter,
  type SlackAdapter,
  type SlackConfig,
} from '../../src/surfaces/channels/slack/index.js';
import type { FakeSlack } from './fake-slack.js';

// Apart from fake-slack.ts: importing the Slack adapter (Bolt) changes the process's HTTP stack, and
// tests that only use the fake (Discord's, say) must not load it.
/**
 * A Socket Mode Slack adapter against a fake Slack with the settings the adapter tests share (a
 * mention needed, DMs from `allowFrom` only, no retries); `config` overrides any of them.
 */
export function createTestSlackAdapter(
  fake: FakeSlack,
  config: Partial<SlackConfig> = {},
  parts: { memory?: ChannelMemory } = {},
): SlackAdapter {
  return createSlackAdapter({
    ...parts,
    config: {
      mode: 'socket',
      botToken: 'xoxb-test',
      appToken: 'xapp-test',
      apiUrl: fake.apiUrl,
      requireMention: true,
      channels: {},
      dmPolicy: 'allowlist',
      allowFrom: [],
      allowBots: false,
      maxBotTurns: 3,
      reconnect: { initialDelayMs: 1000, maxDelayMs: 300_000, refusedDelayMs: 1_800_000 },
      ...config,
    },
    logger: pino({ level: 'silent' }),
    webClientOptions: { retryConfig: { retries: 0 } },
  });
}
