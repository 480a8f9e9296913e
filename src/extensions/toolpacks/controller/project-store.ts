import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { SwitchboardError } from '../../../base/errors/index.js';
import type { Logger } from '../../../base/logging/index.js';
import type { Store } from '../../../records/store/index.js';
import {
  createMessageSender,
  type DeliveryOutcome,
  type DeliveryRetry,
  type MessageSender,
} from './message-sender.js';
import type { Outbox } from './outbox.js';
import type { MessageStatus } from './outbox-journal.js';
import {
  callInvalid,
  checkMessage,
  type ProjectMessage,
  type SendMessageRequest,
} from './project-message.js';
import type { StoreDb } from './store-db.js';
import { createToolpackKeyValue, type ToolpackKeyValue } from './toolpack-kv.js';

/** One roster entry, as Suzumio's `listAgents()` shows it to toolpacks. */
export interface ProjectAgent {
  id: string;
  displayName: string;
  role: string;
  status: string;
  /** Suzumio's state (`quiet`, `running`, `failed`) and since when (ISO), where the roster has them. */
  state?: string;
  stateSince?: string;
}

/** `listAgents()` entry: Suzumio's `status` (`quiet`, `running`, `failed`); Switchboard's in `switchboardStatus`. */
export interface ListedAgent {
  id: string;
  displayName: string;
  role: string;
  status: string;
  /** Switchboard's `idle`/`running`. */
  switchboardStatus: string;
  /** The same as `status` where the roster has it (Switchboard's earlier field). */
  state?: string;
  stateSince?: string;
}

/** The communication keys, as Suzumio's config has them. */
export interface ProjectCommunication {
  readonly coordinatorAgent: string;
  readonly restrictNonCoordinatorToCoordinator?: boolean;
  readonly nonCoordinatorMaxPriority?: string;
  readonly pmRoutineVerifierPriority?: string;
}

/** An agent in `config().agents`: what Suzumio's config says of it, without model keys or prompts. */
export interface ProjectConfigAgent {
  readonly id: string;
  readonly displayName: string;
  readonly tools: readonly string[];
}

/** The read-only config view: what Suzumio's toolpacks read, and nothing else (no secrets). */
export interface ProjectConfigView {
  /** The project's name (`project.id`). */
  readonly name?: string;
  readonly channels: readonly string[];
  readonly agents?: readonly ProjectConfigAgent[];
  /** `tools.toolpacks`: built-in names and local `{ id }` (no paths). */
  readonly tools?: { readonly toolpacks: readonly (string | { readonly id: string })[] };
  readonly communication: ProjectCommunication;
  /** `scheduler.timezone` of the config (IANA; the config's default is `UTC`). */
  readonly scheduler: { readonly timezone: string };
}

/** Suzumio's `sendMessage` answer: the message record. */
export interface SentMessageRecord {
  id: string;
  project: string;
  sender: string;
  recipient?: string;
  channel?: string;
  priority: string;
  body: string;
  createdAt: string;
}

/** `context.store` of a controller: the surface Suzumio's own packaged toolpacks use, plus `kv`. */
export interface ProjectStore {
  /** `root` is the state dir; a toolpack keeps its files under `<root>/toolpack-state/<id>/`. */
  readonly paths: { readonly root: string };
  config(): ProjectConfigView;
  listAgents(): ListedAgent[];
  /**
   * Validates, journals the message in the outbox (when the store has one), hands it to the
   * gateway (which persists and delivers it) and returns its id. A `sendKey` the outbox remembers
   * sends nothing and returns the id of the message first sent with it.
   */
  sendMessage(request: SendMessageRequest): SentMessageRecord;
  /**
   * Switchboard: the latest status of a message this toolpack sent (kept across restarts, the
   * latest 1000), or undefined for an id it does not know. See docs/toolpack-store.md.
   */
  messageStatus(id: string): MessageStatus | undefined;
  /** Whether signals wait for the agent (not yet taken by a wake turn), as in the scheduler hook's context. */
  hasPendingSignalsForAgent(agentId: string): boolean;
  projectStats(): Record<string, unknown>;
  readonly kv: ToolpackKeyValue;
  /**
   * Suzumio's SQLite handle, read-only: Switchboard's signals, messages and wake turns in Suzumio's
   * tables (`createStoreDb`, docs/toolpack-store.md). Undefined when the host gives none: reading it
   * is then reported once (`onUnprovided('store.db')`).
   */
  readonly db?: StoreDb | undefined;
}

export interface ProjectStoreOptions {
  toolpackId: string;
  /** Absolute. */
  stateDir: string;
  /** The names of the configured chat routes (`#ops`); `sendMessage` refuses any other channel. */
  routeNames: readonly string[];
  coordinatorAgent: string;
  /** The rest of `config()`: the project's name, agents, toolpacks, communication keys (no secrets). */
  configView?: Omit<ProjectConfigView, 'channels' | 'scheduler' | 'communication'> & {
    communication?: Omit<ProjectCommunication, 'coordinatorAgent'>;
  };
  /** The `project` of sent message records (`project.id`); default `default`. */
  project?: string;
  listAgents(): readonly ProjectAgent[];
  projectStats(): Record<string, unknown>;
  /** `config().scheduler.timezone`; default `UTC`. */
  timezone?: string;
  /** The signal queue's answer; without it, false. */
  hasPendingSignalsForAgent?(agentId: string): boolean;
  /**
   * Posts or queues; not awaited by `sendMessage`. A rejection is a refusal, retried (`retry`).
   * It resolves to a `DeliveryOutcome`; anything but `queued` counts as `posted`. Unused when
   * `sender` is given.
   */
  deliver?(message: ProjectMessage): unknown;
  retry?: DeliveryRetry;
  /** The delivery with receipts (`createMessageSender`) when the caller keeps it; else one over `deliver`. */
  sender?: MessageSender;
  /**
   * The toolpack's journal of sent messages: with it, a message is on disk before `sendMessage`
   * returns and is settled once delivery has ended, so a process killed in between replays it.
   */
  outbox?: Outbox;
  /** `store.db`: the gateway's read-only SQL view (`createStoreDb`); without it, undefined. */
  db?: StoreDb;
  /** A Suzumio-internal API the controller reached for and this host does not provide (`store.db` without `db`). */
  onUnprovided?(api: string): void;
  store: Store;
  logger: Logger;
}

/** One store per toolpack: `kv` and the `toolpackId` of sent messages belong to it. */
export function createProjectStore(options: ProjectStoreOptions): ProjectStore {
  const { toolpackId } = options;
  if (!path.isAbsolute(options.stateDir))
    throw new SwitchboardError('GATEWAY_STATE', 'createProjectStore: stateDir must be absolute');
  const routes = new Set(options.routeNames);
  const { communication: moreCommunication, ...more } = options.configView ?? {};
  const configView: ProjectConfigView = deepFreeze({
    ...more,
    channels: [...options.routeNames],
    communication: { coordinatorAgent: options.coordinatorAgent, ...moreCommunication },
    scheduler: { timezone: options.timezone ?? 'UTC' },
  });
  const project = options.project ?? 'default';
  const sender = options.sender ?? senderOver(options);

  function sendMessage(request: SendMessageRequest): SentMessageRecord {
    const message = checkMessage(
      request,
      routes,
      options.listAgents().map((agent) => agent.id),
    );
    const createdAt = new Date().toISOString();
    const earlier = message.sendKey === undefined ? undefined : options.outbox?.sentWith(message.sendKey);
    if (earlier !== undefined) return messageRecord(project, { ...message, id: earlier, createdAt });
    const sent: ProjectMessage = {
      id: `msg_${randomUUID()}`,
      ...message,
      createdAt,
      toolpackId,
    };
    // Before the caller sees the id: it may record the send as done at once (the scheduler does).
    options.outbox?.add(sent);
    void sender.send(sent);
    return messageRecord(project, sent);
  }

  const kv = createToolpackKeyValue(options.store, toolpackId);

  return Object.freeze({
    paths: Object.freeze({ root: path.resolve(options.stateDir) }),
    config: () => configView,
    listAgents: () =>
      options.listAgents().map(({ id, displayName, role, status, state, stateSince }) => ({
        id,
        displayName,
        role,
        status: state ?? (status === 'running' ? 'running' : 'quiet'),
        switchboardStatus: status,
        // Kept for toolpacks written against Switchboard before `status` took Suzumio's states.
        ...(state === undefined ? {} : { state }),
        ...(stateSince === undefined ? {} : { stateSince }),
      })),
    sendMessage,
    messageStatus: (id: string) => sender.status(checkId(id, 'messageStatus: id')),
    hasPendingSignalsForAgent: (agentId: string) =>
      options.hasPendingSignalsForAgent?.(checkId(agentId, 'hasPendingSignalsForAgent: agentId')) ?? false,
    projectStats: () => options.projectStats(),
    kv,
    get db(): StoreDb | undefined {
      if (options.db === undefined) options.onUnprovided?.('store.db');
      return options.db;
    },
  });
}

/** Suzumio's message record (no send key, no toolpack id). */
function messageRecord(
  project: string,
  message: Omit<ProjectMessage, 'toolpackId' | 'sendKey'> & { sendKey?: string },
): SentMessageRecord {
  return {
    id: message.id,
    project,
    sender: message.sender,
    ...(message.recipient === undefined ? {} : { recipient: message.recipient }),
    ...(message.channel === undefined ? {} : { channel: message.channel }),
    priority: message.priority,
    body: message.body,
    createdAt: message.createdAt,
  };
}

function deepFreeze<Value>(value: Value): Value {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

function senderOver(options: ProjectStoreOptions): MessageSender {
  const { deliver } = options;
  return createMessageSender({
    toolpackId: options.toolpackId,
    deliver: async (message): Promise<DeliveryOutcome> =>
      (await deliver?.(message)) === 'queued' ? 'queued' : 'posted',
    outbox: options.outbox,
    retry: options.retry,
    logger: options.logger,
  });
}

function checkId(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw callInvalid(`${field} must be a non-empty string`);
  return value;
}
