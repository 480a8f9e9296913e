import { describe, expect, it } from 'vitest';
import {
  freePersonId,
  linkEdit,
  type PeopleFacts,
  pairEdit,
  parseLinkArgs,
  parsePairArgs,
  unlinkEdit,
} from '../../src/engine/identity/index.js';

const facts = (people: PeopleFacts['people'], owners: string[] = []): PeopleFacts => ({
  people,
  owners,
  roles: {},
});

describe('the config edits of links and pairing', () => {
  it('joins an identity to the other’s person, or makes a new person with both', () => {
    const ann = facts({ ann: { role: 'operator', identities: ['slack:U1'] } });
    expect(linkEdit(ann, 'slack:U1', 'discord:D1')).toMatchObject({
      ok: true,
      value: {
        patch: { people: { ann: { identities: ['slack:U1', 'discord:D1'] } } },
        replacePaths: ['people["ann"].identities'],
        role: 'operator',
      },
    });
    expect(linkEdit(facts({}, ['slack:U1']), 'slack:U1', 'discord:D1')).toMatchObject({
      ok: true,
      value: { patch: { people: { 'slack-u1': { role: 'owner', identities: ['slack:U1', 'discord:D1'] } } } },
    });
    expect(linkEdit(facts({}), 'webchat:al.ice', 'discord:D1')).toMatchObject({
      value: { personId: 'al.ice', role: 'member' },
    });
  });

  it('refuses two people, a link made already, and an owner’s role taken away', () => {
    const two = facts({
      ann: { role: 'member', identities: ['slack:U1'] },
      bob: { role: 'member', identities: ['discord:D1'] },
    });
    expect(linkEdit(two, 'slack:U1', 'discord:D1')).toEqual({
      ok: false,
      error: expect.stringContaining('slack:U1 is person ann and discord:D1 is person bob'),
    });
    const one = facts({ ann: { role: 'member', identities: ['slack:U1', 'discord:D1'] } });
    expect(linkEdit(one, 'discord:D1', 'slack:U1')).toMatchObject({ ok: false });
    const member = facts({ ann: { role: 'member', identities: ['slack:U1'] } }, ['discord:D1']);
    expect(linkEdit(member, 'slack:U1', 'discord:D1')).toEqual({
      ok: false,
      error: expect.stringContaining('would take the owner'),
    });
  });

  it('unlinks and pairs, and names what is not there', () => {
    const ann = facts({ ann: { role: 'member', identities: ['slack:U1', 'discord:D1'] } });
    expect(unlinkEdit(ann, 'ann', 'discord:D1')).toMatchObject({
      value: { patch: { people: { ann: { identities: ['slack:U1'] } } } },
    });
    expect(unlinkEdit(ann, 'ann', 'discord:D9')).toMatchObject({ ok: false });
    expect(unlinkEdit(ann, 'zed', 'discord:D1')).toMatchObject({ ok: false });
    expect(pairEdit(ann, 'discord:D1', 'viewer')).toMatchObject({ ok: false });
    expect(pairEdit(ann, 'discord:D9', 'viewer')).toMatchObject({
      value: { patch: { people: { 'discord-d9': { role: 'viewer', identities: ['discord:D9'] } } } },
    });
  });

  it('finds a free person id', () => {
    const taken = facts({ 'slack-u1': { role: 'member', identities: [] } });
    expect(freePersonId(taken, 'slack:U1')).toBe('slack-u1-2');
    expect(freePersonId(taken, 'webchat:__')).toBe('person');
  });
});

describe('the words of /link and /pair', () => {
  it('reads each step and refuses the rest with the usage', () => {
    expect(parseLinkArgs('')).toEqual({ kind: 'ask' });
    expect(parseLinkArgs('abcd-efgh')).toEqual({ kind: 'answer', code: 'abcd-efgh' });
    expect(parseLinkArgs('ABCD EFGH')).toEqual({ kind: 'answer', code: 'ABCDEFGH' });
    expect(parseLinkArgs('confirm ABCD-EFGH')).toEqual({ kind: 'confirm', code: 'ABCD-EFGH' });
    expect(parseLinkArgs('slack:U1')).toMatchObject({ kind: 'usage' });
    expect(parsePairArgs('list')).toEqual({ kind: 'list' });
    expect(parsePairArgs('approve ABCD-EFGH')).toEqual({ kind: 'approve', code: 'ABCD-EFGH' });
    expect(parsePairArgs('approve ABCD-EFGH operator')).toEqual({
      kind: 'approve',
      code: 'ABCD-EFGH',
      role: 'operator',
    });
    expect(parsePairArgs('approve ABCD-EFGH Admin!')).toMatchObject({ kind: 'usage' });
    expect(parsePairArgs('deny ABCD-EFGH')).toEqual({ kind: 'deny', code: 'ABCD-EFGH' });
    expect(parsePairArgs('approve')).toMatchObject({ kind: 'usage' });
  });
});
