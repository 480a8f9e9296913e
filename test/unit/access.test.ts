import { describe, expect, it } from 'vitest';
import { can, type Principal, resolvePrincipal } from '../../src/base/access/index.js';
import { type Config, validateConfig } from '../../src/base/config/index.js';

/** Issue 34 item 1: people, roles, resolving a principal and the one `can` check. */
function team(extra: Record<string, unknown> = {}): Config {
  const result = validateConfig({
    owners: ['webchat:local'],
    agents: { main: {}, helper: {} },
    roles: { member: { agents: ['helper'] }, auditor: { pages: ['sessions'], sees: 'everyone' } },
    people: {
      ann: { role: 'owner', identities: ['slack:UANN', 'discord:D1'], displayName: 'Ann' },
      ops: { role: 'operator', identities: ['slack:UOPS'] },
      bob: { role: 'member', identities: ['slack:UBOB', 'webchat:bob'] },
      vic: { role: 'viewer', identities: ['webchat:vic'] },
      aud: { role: 'auditor', identities: ['webchat:aud'] },
    },
    ...extra,
  });
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result.value;
}

const refusal = (principal: Principal, action: Parameters<typeof can>[1]) => {
  const verdict = can(principal, action);
  return verdict.ok ? 'allowed' : verdict.error;
};

const shell = { kind: 'tool', name: 'shell.exec', risk: ['exec'], ownerOnly: true } as const;
const gateway = (action?: string) =>
  ({
    kind: 'tool',
    name: 'gateway',
    risk: ['control-plane'],
    ownerOnly: true,
    ...(action ? { action } : {}),
  }) as const;

describe('resolvePrincipal', () => {
  it('finds the person of any of their identities, and their role', () => {
    const config = team();
    expect(resolvePrincipal(config, 'discord:D1')).toMatchObject({
      personId: 'ann',
      role: 'owner',
      senderId: 'discord:D1',
    });
    expect(resolvePrincipal(config, 'webchat:bob')).toMatchObject({ personId: 'bob', role: 'member' });
  });

  it('makes an `owners` identity no person lists an owner, and anyone else a member', () => {
    const config = team();
    expect(resolvePrincipal(config, 'webchat:local')).toMatchObject({ role: 'owner' });
    expect(resolvePrincipal(config, 'slack:USTRANGER')).toMatchObject({ role: 'member' });
    expect(resolvePrincipal(config, 'slack:USTRANGER').personId).toBeUndefined();
  });

  it('resolves a person id (an agent runtimeAs) to that person', () => {
    expect(resolvePrincipal(team(), 'ops')).toMatchObject({
      personId: 'ops',
      role: 'operator',
      senderId: 'slack:UOPS',
    });
  });
});

describe('can', () => {
  const config = team();
  const owner = resolvePrincipal(config, 'slack:UANN');
  const operator = resolvePrincipal(config, 'slack:UOPS');
  const member = resolvePrincipal(config, 'slack:UBOB');
  const viewer = resolvePrincipal(config, 'webchat:vic');

  it('gives an owner everything', () => {
    for (const action of [
      shell,
      gateway('config.patch'),
      { kind: 'route', method: 'PUT', url: '/api/config' },
    ] as const)
      expect(refusal(owner, action)).toBe('allowed');
  });

  it('refuses a member shell.exec and the gateway tool, naming the role and what it lacks', () => {
    expect(refusal(member, shell)).toBe(
      'bob (slack:UBOB), role member may not call tool shell.exec: role member lacks it (roles.member.tools: *)',
    );
    expect(refusal(member, gateway())).toMatch(/role member may not call tool gateway: role member lacks it/);
    expect(refusal(member, { kind: 'tool', name: 'files.read', risk: ['read'] })).toBe('allowed');
  });

  it('lets an operator restart but not touch the config', () => {
    expect(refusal(operator, gateway())).toBe('allowed');
    expect(refusal(operator, gateway('restart'))).toBe('allowed');
    expect(refusal(operator, gateway('config.patch'))).toMatch(
      /role operator may not call tool gateway \(config.patch\): role operator lacks it \(roles.operator.tools: \*, shell.exec, gateway, !gateway:config.\*\)/,
    );
    expect(refusal(operator, { kind: 'command', name: 'restart', ownerOnly: true })).toBe('allowed');
    expect(refusal(operator, { kind: 'command', name: 'config', ownerOnly: true })).toMatch(
      /may not run \/config/,
    );
    expect(refusal(operator, { kind: 'page', name: 'config' })).toMatch(/may not open the config page/);
    expect(refusal(operator, { kind: 'route', method: 'GET', url: '/api/config' })).toMatch(
      /may not call GET \/api\/config/,
    );
    expect(refusal(operator, shell)).toBe('allowed');
  });

  it('lets a member chat only with the agents its role names (roles.member.agents)', () => {
    expect(refusal(member, { kind: 'agent', id: 'helper' })).toBe('allowed');
    expect(refusal(member, { kind: 'agent', id: 'main' })).toMatch(
      /may not chat with agent main: role member lacks it \(roles.member.agents: helper\)/,
    );
  });

  it('keeps a member to their own sessions; a viewer reads everyone’s', () => {
    const bobOnWeb = resolvePrincipal(config, 'webchat:bob');
    expect(refusal(member, { kind: 'see', of: bobOnWeb })).toBe('allowed');
    expect(refusal(member, { kind: 'see', of: owner })).toMatch(
      /may not read what ann owns: role member sees its own only/,
    );
    expect(refusal(viewer, { kind: 'see', of: owner })).toBe('allowed');
  });

  it('lets a viewer read but not post', () => {
    expect(refusal(viewer, { kind: 'route', method: 'GET', url: '/api/sessions' })).toBe('allowed');
    expect(refusal(viewer, { kind: 'route', method: 'POST', url: '/api/sessions/:key/messages' })).toMatch(
      /role viewer may not call POST \/api\/sessions\/:key\/messages: role viewer lacks it/,
    );
    expect(refusal(viewer, { kind: 'page', name: 'sessions' })).toBe('allowed');
    expect(refusal(viewer, { kind: 'agent', id: 'helper' })).toMatch(/roles.viewer.agents: none/);
  });

  it('reads a configured role whole: absent lists give nothing', () => {
    const auditor = resolvePrincipal(config, 'webchat:aud');
    expect(refusal(auditor, { kind: 'page', name: 'sessions' })).toBe('allowed');
    expect(refusal(auditor, { kind: 'page', name: 'health' })).toMatch(/role auditor lacks it/);
    expect(refusal(auditor, { kind: 'tool', name: 'files.read' })).toMatch(/roles.auditor.tools: none/);
  });

  it('names tools by namespace and risk class, and `!` takes away', () => {
    const custom = team({
      roles: { auditor: { pages: [] }, ops: { tools: ['files.*', 'risk:network', '!files.write'] } },
    });
    custom.people.bob = { role: 'ops', identities: ['slack:UBOB'] };
    const bob = resolvePrincipal(custom, 'slack:UBOB');
    expect(refusal(bob, { kind: 'tool', name: 'files.read' })).toBe('allowed');
    expect(refusal(bob, { kind: 'tool', name: 'files.write' })).toMatch(/lacks it/);
    expect(refusal(bob, { kind: 'tool', name: 'web.fetch', risk: ['network'] })).toBe('allowed');
    expect(refusal(bob, { kind: 'tool', name: 'web.search', risk: ['read'] })).toMatch(/lacks it/);
  });
});

describe('people and roles in the config', () => {
  const issues = (config: Record<string, unknown>) => {
    const result = validateConfig(config);
    return result.ok ? [] : result.error.map((issue) => `${issue.path}: ${issue.message}`);
  };

  it('refuses a role that does not exist, an identity of two people and a configured owner role', () => {
    expect(
      issues({
        roles: { owner: { tools: [] } },
        people: {
          a: { role: 'admin', identities: ['slack:U1'] },
          b: { role: 'member', identities: ['slack:U1'] },
        },
      }),
    ).toEqual([
      '/roles/owner: owner is built in (it may do everything): remove it',
      '/people/a/role: names role "admin", which is neither built in nor in roles (have: owner, operator, member, viewer)',
      '/people/b/identities/0: "slack:U1" is already an identity of person a: an identity is one person\'s',
    ]);
  });

  it('refuses owners listing an identity whose person has another role', () => {
    expect(
      issues({ owners: ['slack:U1'], people: { a: { role: 'viewer', identities: ['slack:U1'] } } }),
    ).toEqual([
      '/owners/0: "slack:U1" is an identity of person a, whose role is viewer: set people.a.role to owner or remove it from owners',
    ]);
  });

  it('refuses a runtimeAs that is neither a person nor a sender id', () => {
    expect(issues({ agents: { main: { runtimeAs: 'nobody' } } })).toEqual([
      '/agents/main/runtimeAs: "nobody" is neither a person (a key of people) nor a sender id (slack:U…, discord:<id>, webchat:<user>)',
    ]);
    expect(issues({ agents: { main: { runtimeAs: 'ann' } }, people: { ann: { role: 'owner' } } })).toEqual(
      [],
    );
  });
});
