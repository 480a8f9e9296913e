/**
 * `GET /channels/:id/messages` for the fake Discord: the channel's messages (every MESSAGE_CREATE
 * the fake sent, the bot's posts included) newest first, as Discord answers, bounded by `before`
 * (a snowflake, exclusive) and `limit` (1–100, default 50).
 */
export function channelHistory(
  messages: ReadonlyMap<string, Record<string, unknown>>,
  channelId: string,
  query: URLSearchParams,
): Record<string, unknown>[] | { status: 400 } {
  const limit = Number(query.get('limit') ?? 50);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) return { status: 400 };
  const before = query.get('before');
  return [...messages.values()]
    .filter((message) => message.channel_id === channelId)
    .filter((message) => before === null || BigInt(String(message.id)) < BigInt(before))
    .sort((a, b) => (BigInt(String(b.id)) > BigInt(String(a.id)) ? 1 : -1))
    .slice(0, limit);
}
