import type { FastifyInstance } from 'fastify';
import {
  createHttpServer,
  type HttpServer,
  type HttpServerOptions,
  type RouteContext,
} from '../http/index.js';
import { type ApprovalsInbox, registerApprovalRoutes } from './routes/approvals.js';
import { type ConfigRoutesOptions, registerConfigRoutes } from './routes/config.js';
import { registerEventsRoute, type SessionEventsPort } from './routes/events.js';
import { type LogsPort, registerLogsRoute } from './routes/logs.js';
import { registerMeRoute } from './routes/me.js';
import { type PeoplePlace, type PeoplePort, registerPeopleRoutes } from './routes/people.js';
import { registerSessionActionRoutes, type SessionActionsPort } from './routes/session-actions.js';
import { registerSessionRoutes, type SessionsView } from './routes/sessions.js';
import { registerSetupRoutes } from './routes/setup.js';
import { registerStatusRoute, type StatusPort } from './routes/status.js';
import { registerToolUiRoutes, type ToolUiOptions } from './routes/tool-ui.js';
import { registerToolpackRoutes, type ToolpacksView } from './routes/toolpacks.js';
import { registerUsageRoute, type UsagePort } from './routes/usage.js';
import { registerWebchatHistoryRoutes, type WebchatHistoryPort } from './routes/webchat-history.js';
import { type LinkedSessionsPort, registerLinkedSessionRoutes } from './routes/webchat-linked.js';

/** The control plane's read models and actions, each answering its routes; absent, not served. */
export interface ControlRoutesOptions {
  /** `project.id`, shown by the control UI (`/api/me`) and checked by the Tools API; default `default`. */
  projectId?: string | undefined;
  /** The gateway's version (package.json), shown by the control UI; default `0.0.0`. */
  version?: string | undefined;
  /** No model answers yet: `/api/me` says so and an owner's control UI opens on Setup. */
  setupNeeded?: boolean | undefined;
  sessions: SessionsView;
  /** The control UI's session actions (sub-agent tree, kill, steer, replies). */
  sessionActions?: SessionActionsPort | undefined;
  /** The session events bus: `GET /api/events` (owner-only live updates). */
  sessionEvents?: SessionEventsPort | undefined;
  /** The signed-in user's web chat threads and history (the chat page), with the web chat. */
  webchatHistory?: WebchatHistoryPort | undefined;
  /** The signed-in person's Slack and Discord direct chats, read and continued from the web chat. */
  linkedSessions?: LinkedSessionsPort | undefined;
  /** The config page's API (`/api/config…`, owner-only). */
  config?: Omit<ConfigRoutesOptions, 'access'> | undefined;
  /** The approvals inbox (`/api/approvals`). */
  approvals?: ApprovalsInbox | undefined;
  /** The health page's report (`/api/status`). */
  status?: StatusPort | undefined;
  /** The usage report (`/api/usage`, owner-only). */
  usage?: UsagePort | undefined;
  /** The process log's newest lines (`/api/logs`, owner-only: the Logs page). */
  logs?: LogsPort | undefined;
  /** The People page (`/api/people…`, owner-only): people, links, pairing requests. */
  people?: { port: PeoplePort; noteSession(user: string): PeoplePlace } | undefined;
  /** The toolpacks report (`/api/toolpacks`). */
  toolpacks: ToolpacksView;
  /** Toolpack WebUI entries: the Tools page and its API, when given. */
  toolUi?: ToolUiOptions | undefined;
}

export type ControlServerOptions = Omit<HttpServerOptions, 'routes'> & ControlRoutesOptions;

/** The HTTP server (`src/http`) with the control plane's routes. */
export function createControlServer(options: ControlServerOptions): Promise<HttpServer> {
  return createHttpServer({
    ...options,
    routes: (app, context) => registerControlRoutes(app, options, context),
  });
}

/** Each route of the control plane, given the server's access policy and web chat. */
export function registerControlRoutes(
  app: FastifyInstance,
  options: ControlRoutesOptions,
  { access, webchat, maxMessageLength }: RouteContext,
): void {
  registerMeRoute(app, {
    access,
    projectId: options.projectId ?? 'default',
    version: options.version ?? '0.0.0',
    setupNeeded: options.setupNeeded ?? false,
    maxMessageLength,
  });
  registerSessionRoutes(app, options.sessions);
  if (options.sessionActions)
    registerSessionActionRoutes(app, { actions: options.sessionActions, access, webchat, maxMessageLength });
  if (options.sessionEvents) registerEventsRoute(app, { events: options.sessionEvents, access });
  if (webchat && options.webchatHistory) registerWebchatHistoryRoutes(app, options.webchatHistory);
  if (webchat && options.linkedSessions)
    registerLinkedSessionRoutes(app, { linked: options.linkedSessions, maxMessageLength });
  if (options.config) registerConfigRoutes(app, { ...options.config, access });
  if (options.config?.setup)
    registerSetupRoutes(app, {
      setup: options.config.setup,
      access,
      noteSession: options.config.noteSession,
    });
  if (options.approvals) registerApprovalRoutes(app, { inbox: options.approvals, access });
  if (options.status) registerStatusRoute(app, { status: options.status, access });
  if (options.usage) registerUsageRoute(app, { usage: options.usage, access });
  if (options.logs) registerLogsRoute(app, { logs: options.logs, access });
  if (options.people)
    registerPeopleRoutes(app, {
      people: options.people.port,
      noteSession: options.people.noteSession,
      access,
    });
  registerToolpackRoutes(app, options.toolpacks);
  if (options.toolUi) registerToolUiRoutes(app, options.toolUi, access);
}
