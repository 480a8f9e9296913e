import { fail, ok, type Result } from '../errors/index.js';
import type { RoleRules } from './builtin-roles.js';
import { describePrincipal, type Principal } from './principal.js';

/**
 * What a principal may be asked about. Every surface asks through `can`: the tool registry (a
 * tool, or one action of a tool with actions), chat commands, agents (whom a message may reach),
 * control-UI pages, HTTP routes (`METHOD /route/:param`), and reading what another principal owns
 * (a session, usage).
 */
export type Action =
  | { kind: 'tool'; name: string; risk?: readonly string[]; ownerOnly?: boolean; action?: string }
  | { kind: 'agent'; id: string }
  | { kind: 'command'; name: string; ownerOnly?: boolean }
  | { kind: 'page'; name: string }
  | { kind: 'route'; method: string; url: string }
  | { kind: 'see'; of: Principal };

/**
 * Whether the principal's role allows the action: ok, or the refusal naming who, the role and
 * what it lacks (`bob (slack:U2), role member may not call tool shell.exec: role member lacks it
 * (roles.member.tools: *)`). Pure: it reads only the principal (its role's rules) and the action.
 * An item that starts with `!` takes away whatever the other items give.
 */
export function can(principal: Principal, action: Action): Result<true, string> {
  const { rules } = principal;
  // The owner may do everything, owner-only tools and commands included; config cannot narrow it.
  if (principal.role === 'owner') return ok(true);
  const [field, what, list] = subject(rules, action);
  if (action.kind === 'see') {
    const same =
      action.of.senderId === principal.senderId ||
      (action.of.personId !== undefined && action.of.personId === principal.personId);
    if (same || rules.sees === 'everyone') return ok(true);
    return fail(
      `${describePrincipal(principal)} may not ${what}: role ${principal.role} sees its own only (sees: own)`,
    );
  }
  const matches = (item: string) => matchItem(item, action);
  const given = list.some((item) => !item.startsWith('!') && matches(item));
  const taken = list.some((item) => item.startsWith('!') && takes(item.slice(1), action));
  if (given && !taken) return ok(true);
  return fail(
    `${describePrincipal(principal)} may not ${what}: role ${principal.role} lacks it (roles.${principal.role}.${field}: ${list.join(', ') || 'none'})`,
  );
}

/** The rule list an action is checked against, and how the refusal names the action. */
function subject(rules: RoleRules, action: Action): [field: string, what: string, list: readonly string[]] {
  switch (action.kind) {
    case 'tool':
      return [
        'tools',
        `call tool ${action.action === undefined ? action.name : `${action.name} (${action.action})`}`,
        rules.tools,
      ];
    case 'agent':
      return ['agents', `chat with agent ${action.id}`, rules.agents];
    case 'command':
      return ['commands', `run /${action.name}`, rules.commands];
    case 'page':
      return ['pages', `open the ${action.name} page`, rules.pages];
    case 'route':
      return ['routes', `call ${action.method} ${action.url}`, rules.routes];
    case 'see':
      return ['sees', `read what ${action.of.personId ?? action.of.senderId} owns`, []];
  }
}

/** Whether a positive item gives the action. */
function matchItem(item: string, action: Action): boolean {
  switch (action.kind) {
    case 'tool':
      return toolItem(item, action, true);
    case 'command':
      return item === action.name || (item === '*' && action.ownerOnly !== true);
    case 'agent':
    case 'page':
      return item === '*' || item === (action.kind === 'agent' ? action.id : action.name);
    case 'route':
      return routeItem(item, action.method, action.url);
    case 'see':
      return false;
  }
}

/** Whether a `!` item (without its `!`) takes the action away: `!*` takes everything, owner-only or not. */
function takes(item: string, action: Action): boolean {
  if (item === '*') return true;
  if (action.kind === 'tool') return toolItem(item, action, false);
  return matchItem(item, action);
}

/**
 * A tools item against a tool (and its action). Giving: `*` gives every tool but the owner-only
 * ones; `tool:action` gives the tool (it is offered) and the actions it matches. Taking:
 * `tool:action` takes only those actions, never the tool itself.
 */
function toolItem(item: string, tool: Extract<Action, { kind: 'tool' }>, giving: boolean): boolean {
  if (item === '*') return tool.ownerOnly !== true;
  if (item.startsWith('risk:')) return tool.risk?.includes(item.slice(5)) === true;
  const colon = item.indexOf(':');
  if (colon >= 0) {
    if (item.slice(0, colon) !== tool.name) return false;
    if (tool.action === undefined) return giving;
    return prefixMatch(item.slice(colon + 1), tool.action, '.');
  }
  return prefixMatch(item, tool.name, '.');
}

/** `METHOD /path` items: `*` for any method, a path ending in `*` for everything under it. */
function routeItem(item: string, method: string, url: string): boolean {
  if (item === '*') return true;
  const [itemMethod = '', itemPath = ''] = item.split(' ');
  if (itemMethod !== '*' && itemMethod !== method) return false;
  return itemPath.endsWith('*') ? url.startsWith(itemPath.slice(0, -1)) : url === itemPath;
}

/** An exact name, or `a.*` (everything under `a.`), or `*`. */
function prefixMatch(pattern: string, name: string, separator: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith(`${separator}*`)) return name.startsWith(pattern.slice(0, -1));
  return pattern === name;
}
