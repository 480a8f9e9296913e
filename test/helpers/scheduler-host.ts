import path from 'node:path';
import { createLogger } from '../../src/base/logging/index.js';
import {
  type ControllerHost,
  createControllerHost,
  createProjectStore,
  type ProjectMessage,
  type ProjectStore,
} from '../../src/extensions/toolpacks/index.js';
import type { Store } from '../../src/records/store/index.js';
import { REPO_ROOT } from './process.js';
import { loadToolpackFixture } from './toolpacks.js';

/** The packaged scheduler toolpack, absolute. */
export const SCHEDULER_DIR = path.join(REPO_ROOT, 'toolpacks/scheduler');

export const SCHEDULER_ROSTER = [
  { id: 'pm', displayName: 'Project manager', role: 'coordinator', status: 'idle' },
  { id: 'ops', displayName: 'Ops', role: 'agent', status: 'idle' },
];

/** What `store.messageStatus(id)` answers (the store lane's receipts). */
export type MessageStatus =
  | { state: 'pending' | 'delivered' | 'failed'; attempts: number; error?: string; deliveredAt?: string }
  | undefined;

export interface SchedulerHostOptions {
  stateDir: string;
  store: Store;
  deliver(message: ProjectMessage): void | Promise<void>;
  /** Adds `messageStatus` to the controller's store (a host with delivery receipts). */
  messageStatus?: (id: string) => MessageStatus | Promise<MessageStatus>;
  /**
   * Adds `scheduler: { timezone }` to `store.config()`; `null` leaves `scheduler` out, as a host
   * without the key (Suzumio) does.
   */
  timezone?: string | null;
}

function quietLogger() {
  return createLogger({ level: 'silent', destination: { write: () => undefined } }).logger;
}

/**
 * A controller host of the packaged scheduler on `stateDir`, as the gateway builds it; a new one on
 * the same dir is a restart. Returns the tool caller, the tick (with a controlled `now`) and shortcuts.
 */
export async function startSchedulerHost(options: SchedulerHostOptions) {
  const toolpack = await loadToolpackFixture(SCHEDULER_DIR, 'scheduler');
  const base = createProjectStore({
    toolpackId: toolpack.id,
    stateDir: options.stateDir,
    routeNames: ['#ops', '#lobby'],
    coordinatorAgent: 'pm',
    listAgents: () => SCHEDULER_ROSTER,
    projectStats: () => ({}),
    deliver: options.deliver,
    store: options.store,
    logger: quietLogger(),
  });
  const { messageStatus, timezone } = options;
  const baseConfig = base.config();
  const config = () => {
    // The store lane's config view has `scheduler` already; replace or drop it as the test asks.
    const { scheduler: _ignored, ...rest } = baseConfig as typeof baseConfig & { scheduler?: unknown };
    return timezone === undefined
      ? baseConfig
      : timezone === null
        ? rest
        : { ...rest, scheduler: { timezone } };
  };
  // Copied by descriptor: a getter of the base store (say, one that reports a `db` read) is not run.
  const descriptors: PropertyDescriptorMap = Object.getOwnPropertyDescriptors(base);
  delete descriptors.config;
  delete descriptors.messageStatus;
  const extended = Object.defineProperties(
    { config, ...(messageStatus ? { messageStatus } : {}) },
    descriptors,
  );
  const host: ControllerHost = createControllerHost({
    toolpack,
    store: extended as unknown as ProjectStore,
    logger: quietLogger(),
    recordSignal: () => undefined,
  });
  const hook = await host.schedulerHook();
  if (!hook) throw new Error('the scheduler controller exports no scheduler hook');
  const call = async (tool: string, input: Record<string, unknown>) =>
    (await host.support({ tool, input, agent: { id: 'pm' }, activationId: 'act_test' })) as {
      output: string;
      title?: string;
      metadata: any;
    };
  const idle = SCHEDULER_ROSTER.map(({ id }) => ({ id, status: 'idle', modelAlive: false }));
  const tick = (now: number) =>
    hook({
      now,
      agents: idle,
      recordSignal: () => undefined,
      hasPendingSignals: () => false,
      hasPendingSignalsForAgent: () => false,
    });
  const recurring = (input: Record<string, unknown>) => call('schedule.recurring', input);
  const list = async (includeInactive = false) => call('schedule.list', { includeInactive });
  return { host, call, tick, recurring, list };
}
