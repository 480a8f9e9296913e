import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestGateway } from '../helpers/gateway.js';
import { cleanupAfterEach } from '../helpers/teardown.js';
import { FIXTURES_DIR } from '../helpers/toolpacks.js';

/**
 * The controller `store` as Suzumio's (issue 35), through a real gateway and the Tools API: the
 * message record from sendMessage, config() with the project's name, agents, tools and the
 * communication keys (no secrets), Suzumio's projectStats counters, Suzumio's agent states, and a
 * refused recordSignal thrown to the handler.
 */

const STORE = path.join(FIXTURES_DIR, 'webui-toolpacks/suzumio-store');
const cleanups = cleanupAfterEach();

describe('the controller store as Suzumio has it', () => {
  it('answers with Suzumio shapes and throws what recordSignal refuses', async () => {
    const gateway = await startTestGateway({
      config: {
        project: { id: 'apollo' },
        tools: { toolpacks: ['core', { path: STORE, id: 'suzumio-store' }] },
        models: {
          fake: {
            provider: 'openai',
            model: 'fake-1',
            baseUrl: 'http://127.0.0.1:9',
            apiKey: 'sk-secret-never-shown',
          },
        },
        agents: {
          pm: { model: 'fake', displayName: 'Project manager', tools: ['*'] },
          dev: { model: 'fake', tools: ['messages.send'] },
        },
        defaultAgent: 'pm',
        communication: { coordinatorAgent: 'pm', restrictNonCoordinatorToCoordinator: true },
        routes: { '#ops': 'webchat:local' },
      },
    });
    cleanups.push(() => gateway.dispose());
    const entry = async (id: string, input: Record<string, unknown> = {}) =>
      gateway.request('POST', `/api/projects/apollo/tool-ui/suzumio-store/${id}`, input);

    const sent = await entry('store.send', { sender: 'pm', recipient: 'dev', body: 'start', priority: 'P2' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(sent.body.metadata.message).toEqual({
      id: expect.stringMatching(/^msg_/),
      project: 'apollo',
      sender: 'pm',
      recipient: 'dev',
      priority: 'P2',
      body: 'start',
      createdAt: expect.stringMatching(/^\d{4}-/),
    });

    const config = (await entry('store.config')).body.metadata.config;
    expect(config).toMatchObject({
      name: 'apollo',
      channels: ['#ops'],
      agents: [
        { id: 'pm', displayName: 'Project manager', tools: ['*'] },
        { id: 'dev', displayName: 'dev', tools: ['messages.send'] },
      ],
      tools: { toolpacks: ['core', { id: 'suzumio-store' }] },
      communication: {
        coordinatorAgent: 'pm',
        restrictNonCoordinatorToCoordinator: true,
        nonCoordinatorMaxPriority: 'P2',
        pmRoutineVerifierPriority: 'P3',
      },
    });
    expect(JSON.stringify(config)).not.toContain('sk-secret');

    await expect
      .poll(async () => (await entry('store.stats')).body.metadata.stats)
      .toMatchObject({
        messageCount: 1,
        activationCount: expect.any(Number),
        failedActivationCount: expect.any(Number),
        runningActivationCount: expect.any(Number),
      });

    const agents = (await entry('store.agents')).body.metadata.agents;
    expect(agents.map((agent: any) => [agent.id, agent.status, agent.switchboardStatus])).toEqual([
      ['pm', 'quiet', 'idle'],
      ['dev', expect.stringMatching(/^(quiet|running|failed)$/), expect.stringMatching(/^(idle|running)$/)],
    ]);

    const refused = await entry('store.signal', { kind: 'x', targetAgent: 'dev', priority: 'P9' });
    expect(refused.status).toBe(500);
    expect(refused.body.message).toContain('signal priority must be one of P0, P1, P2, P3');
    const unknown = await entry('store.signal', { kind: 'x', targetAgent: 'nobody' });
    expect(unknown.status).toBe(500);
    expect(unknown.body.message).toContain('target agent nobody is not an agent');
    expect((await entry('store.signal', { kind: 'x', targetAgent: 'dev', priority: 'P3' })).status).toBe(200);
  });
});
