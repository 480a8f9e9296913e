import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { createSubagentScript } from '../fakes/subagent-script.js';
import { startGatewayForTest } from './channels.js';
import type { Cleanups } from './teardown.js';

/**
 * A gateway whose agent `main` talks to a fake model scripted per session (`script.parent`,
 * `script.child`: test/fakes/subagent-script.ts), for the sub-agent and session action tests.
 * `config` is merged over the defaults at the top level; both are stopped after the test by
 * `cleanups` (the gateway first).
 */
export async function startSubagentGateway(cleanups: Cleanups, config: Record<string, unknown> = {}) {
  const script = createSubagentScript();
  const model = await startFakeOpenAIServer({ defaultStep: script.step });
  cleanups.push(() => model.close());
  const gateway = await startGatewayForTest(cleanups, {
    config: {
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-test' } },
      agents: { main: { model: 'fake' } },
      gateway: { drainTimeoutMs: 200 },
      ...config,
    },
  });
  return { gateway, model, script };
}
