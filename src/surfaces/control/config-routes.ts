import { type Config, renderConfigJsonSchema } from '../../base/config/index.js';
import type { GatewayControl } from '../../engine/tools/index.js';
import { createFirstRun } from './first-run.js';
import type { ConfigRoutesOptions } from './routes/config.js';
import { webchatSessionKey } from './webchat-history.js';

/**
 * The config page's API over this gateway's control: its edits are the owner's `/config` edits,
 * and the restart note goes to the owner's own web chat session (no thread), the session the web
 * chat's default thread uses, so the page can wait for it there.
 */
export function createConfigRoutesOptions(options: {
  config: Config;
  control: GatewayControl;
  /** The environment the next start reads (the env file read again): the Setup page's secrets go there. */
  environment: () => NodeJS.ProcessEnv;
}): Omit<ConfigRoutesOptions, 'access'> {
  const { config, control } = options;
  return {
    control,
    setup: createFirstRun({ control, environment: options.environment }),
    // As `config/gateway.schema.json` has it: descriptions, defaults, `x-secret` marks.
    schema: JSON.parse(renderConfigJsonSchema()) as object,
    noteSession(user) {
      const route = { channel: 'webchat' as const, chatType: 'direct' as const, chatId: user };
      return { sessionKey: webchatSessionKey(config, user, undefined), route };
    },
  };
}
