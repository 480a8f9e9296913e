import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/base/config/index.js';

// `http.users`: each named user's token, checked when the config is read (start, edit, restart).
const token = (letter: string) => letter.repeat(16);

function issuesOf(http: Record<string, unknown>) {
  const result = validateConfig({ http });
  return result.ok ? [] : result.error;
}

describe('http.users', () => {
  it('takes users by web chat name, each with a token of 16 characters or more', () => {
    const result = validateConfig({
      http: { users: { alice: { token: token('a') }, 'b.ob-2': { token: token('b') } } },
    });
    expect(result.ok).toBe(true);
    const defaults = validateConfig({});
    expect(defaults.ok && defaults.value.http.users).toEqual({});
  });

  it('refuses a bad name, `local` (the gateway token’s), a short token and unknown keys, naming each', () => {
    expect(issuesOf({ users: { 'bad name': { token: token('a') } } })[0]?.path).toBe('/http/users/bad name');
    expect(issuesOf({ users: { local: { token: token('a') } } })[0]?.path).toBe('/http/users/local');
    expect(issuesOf({ users: { bob: { token: 'short' } } })).toEqual([
      { path: '/http/users/bob/token', message: 'must NOT have fewer than 16 characters' },
    ]);
    expect(issuesOf({ users: { bob: { token: token('b'), admin: true } } })[0]?.path).toBe(
      '/http/users/bob/admin',
    );
  });

  it('refuses a token shared by two users or with http.token, naming the other field and not the token', () => {
    const issues = issuesOf({
      token: token('t'),
      users: { alice: { token: token('a') }, bob: { token: token('a') }, carol: { token: token('t') } },
    });
    expect(issues).toEqual([
      { path: '/http/users/bob/token', message: 'is the same as http.users.alice.token: each needs its own' },
      { path: '/http/users/carol/token', message: 'is the same as http.token: each needs its own' },
    ]);
    expect(JSON.stringify(issues)).not.toContain(token('a'));
  });
});
