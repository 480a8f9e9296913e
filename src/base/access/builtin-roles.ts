import type { RoleConfig } from '../config/index.js';

/** A role with every list given: a built-in one, or a configured one after the built-in it overrides. */
export type RoleRules = Required<
  Pick<RoleConfig, 'tools' | 'agents' | 'commands' | 'pages' | 'routes' | 'sees'>
> &
  Pick<RoleConfig, 'budget' | 'description'>;

/**
 * The routes a member may call: each checks further itself (the web chat and its history are the
 * user's own; approvals are decided by approvers; a session's messages go to the user's own web
 * chat session). Before roles these were the owner gate's routes open to every named user.
 */
const MEMBER_ROUTES = [
  'GET /api/me',
  'GET /api/webchat/*',
  'POST /api/webchat/*',
  'GET /api/approvals*',
  'POST /api/approvals*',
  'POST /api/sessions/:key/messages',
];

/**
 * The built-in roles. `owner` may do everything, always (config cannot narrow it). `*` in `tools`
 * and `commands` leaves out the owner-only ones (`shell.exec`, `gateway`; `/config`, `/restart`, …):
 * a role that has them names them.
 */
export const BUILTIN_ROLES: Readonly<Record<string, RoleRules>> = {
  owner: {
    description: 'Everything: config, restarts, every tool, agent, command, page and route.',
    tools: ['*'],
    agents: ['*'],
    commands: ['*'],
    pages: ['*'],
    routes: ['*'],
    sees: 'everyone',
  },
  operator: {
    description:
      'Everything but the config: every tool and agent, restarts, every page but Config and People.',
    tools: ['*', 'shell.exec', 'gateway', '!gateway:config.*'],
    agents: ['*'],
    commands: ['*', 'restart', 'confirm', 'update', '!config', '!rescue'],
    pages: ['*', '!config', '!people', '!setup'],
    routes: ['*', '!* /api/config*', '!* /api/people*'],
    sees: 'everyone',
  },
  member: {
    description: 'Chat with the agents the role names; their own sessions and usage only.',
    tools: ['*'],
    agents: ['*'],
    commands: ['*'],
    pages: ['chat', 'approvals'],
    routes: MEMBER_ROUTES,
    sees: 'own',
  },
  viewer: {
    description: 'Read the control UI: sessions, health, tools, approvals; never post or chat.',
    tools: [],
    agents: [],
    commands: ['help', 'whoami', 'status'],
    pages: ['*', '!config', '!chat', '!people', '!setup'],
    routes: ['GET *', '!GET /api/config*', '!GET /api/webchat/*', '!GET /api/people*'],
    sees: 'everyone',
  },
};
