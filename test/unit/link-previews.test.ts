import { describe, expect, it } from 'vitest';
import { findAgentEditDecisions } from '../../src/base/config/editor/agent-editable.js';
import { linkHosts, previewSettingsFor, previewsAllowed } from '../../src/surfaces/channels/link-previews.js';

const DOCS = { allowHosts: ['docs.example.com'] };

describe('link previews', () => {
  it('finds the hosts of scheme URLs, Slack links and bare names a platform may link', () => {
    expect(
      linkHosts(
        'see https://Docs.Example.com/a?b=1, <http://evil.example/x|here>, user:pw@ignored and evil2.example/leak?k=1',
      ).sort(),
    ).toEqual(['docs.example.com', 'evil.example', 'evil2.example']);
    expect(linkHosts('ftp://user:secret@files.example.net/x')).toEqual(['files.example.net']);
    expect(linkHosts('no links, v1.2 and 3.5 only')).toEqual([]);
  });

  it('allows previews only when every link is on the list, never without links or settings', () => {
    expect(previewsAllowed('https://docs.example.com/guide', DOCS)).toBe(true);
    expect(previewsAllowed('HTTPS://DOCS.EXAMPLE.COM/guide', DOCS)).toBe(true);
    expect(previewsAllowed('https://docs.example.com/a and https://evil.example/?k=s', DOCS)).toBe(false);
    // A sub-domain, or a host that only ends like an allowed one, is another host.
    expect(previewsAllowed('https://x.docs.example.com/', DOCS)).toBe(false);
    expect(previewsAllowed('https://evildocs.example.com/', DOCS)).toBe(false);
    // A bare name the platform would link counts; so does a file name (the safe side).
    expect(previewsAllowed('https://docs.example.com/ and evil.example/?k=s', DOCS)).toBe(false);
    expect(previewsAllowed('https://docs.example.com/ see notes.md', DOCS)).toBe(false);
    expect(previewsAllowed('nothing to preview', DOCS)).toBe(false);
    expect(previewsAllowed('https://docs.example.com/', undefined)).toBe(false);
    expect(previewsAllowed('https://docs.example.com/', { allowHosts: [] })).toBe(false);
  });

  it("takes a channel's own settings over the platform's", () => {
    const config = { linkPreviews: DOCS, channels: { C1: { linkPreviews: { allowHosts: [] } }, C2: {} } };
    expect(previewSettingsFor(config, 'C1')).toEqual({ allowHosts: [] });
    expect(previewSettingsFor(config, 'C2')).toBe(DOCS);
    expect(previewSettingsFor(config, undefined)).toBe(DOCS);
  });

  it("the allow lists are not the model's to change (x-agent-editable false)", () => {
    const decisions = findAgentEditDecisions().filter((decision) => decision.path.includes('linkPreviews'));
    expect(decisions.map((decision) => decision.path).sort()).toEqual([
      'channels.discord.channels.*.linkPreviews.allowHosts',
      'channels.discord.linkPreviews.allowHosts',
      'channels.slack.channels.*.linkPreviews.allowHosts',
      'channels.slack.linkPreviews.allowHosts',
    ]);
    for (const decision of decisions) expect(decision.editable).toBe(false);
  });
});
