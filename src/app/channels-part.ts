import type { Router } from '../engine/routing/index.js';
import type { Toolpacks } from '../extensions/toolpacks/index.js';
import type { ChannelSupervisor } from '../surfaces/channels/index.js';
import { createChannels, type GatewayChannels } from './build-channels.js';
import type { Base, Storage } from './gateway-types.js';
import type { Part } from './part.js';
import type { Observing } from './storage-part.js';
import { createWorkspaceFiles } from './workspace-files.js';

/**
 * The channel adapters and delivery by route, with `workspace-files.ts` as their inbound file
 * store, and their supervisor. Nothing connects yet (the `connect` part does, once the router
 * exists, and stops them), so this part's stop has nothing of its own.
 */
export function channelsPart(): Part<Storage, Base> {
  return {
    name: 'channels',
    async start(storage) {
      const { config, configPath, stateDir, store, logger, observer } = storage;
      const files = createWorkspaceFiles({ config, configPath, stateDir });
      const channels = await createChannels(config, store, logger, files);
      // Every delivered message counted by channel (replies, posts, approval requests, notes).
      const observed: GatewayChannels = observer
        ? { ...channels, outboundFor: observer.outbound(channels.outboundFor) }
        : channels;
      return { ...storage, channels: observed, supervisor: channels.supervise(logger) };
    },
    async stop() {},
  };
}

/**
 * The channels connect through their supervisor: Slack or Discord failing to start costs only
 * that channel, retried until it connects. Then what the controllers sent just before the last
 * process was killed (with the channels up, for posts; before the scheduler's first tick). The
 * stopping signal ends the retries at once; the stop disconnects, after the drain and before
 * HTTP closes (a web chat's event stream ends with its adapter).
 */
export function connectPart(): Part<
  { base: Base; router: Router; toolpacks: Toolpacks; metrics: Observing; stopping: AbortSignal },
  ChannelSupervisor
> {
  let supervisor: ChannelSupervisor | undefined;
  return {
    name: 'connect',
    async start({ base, router, toolpacks, metrics, stopping }) {
      const started = base.supervisor;
      supervisor = started;
      stopping.addEventListener('abort', () => started.endRetries(), { once: true });
      metrics.bind({
        queueDepth: router.queueDepth,
        channels: started.states,
        deafReconnects: () =>
          Object.fromEntries(started.details().map((detail) => [detail.name, detail.deafReconnects ?? 0])),
      });
      const { observer } = base;
      await started.start(observer ? observer.inbound(router.dispatch) : router.dispatch);
      await toolpacks.replayOutboxes();
      return started;
    },
    async stop() {
      await supervisor?.stop();
    },
  };
}
