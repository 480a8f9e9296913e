/**
 * `GET /channels/:id/messages` for the fake Discord: the channel's messages (every MESSAGE_CREATE
 * the fake sent, the bot's posts included) newest first, as Discord answers, bounded by `before`
 * or `after` (a snowflake, exclusive) and `limit` (1–100, default 50).
 */
export function channelHistory(
  messages: ReadonlyMap<string, Record<string, unknown>>,
  channelId: string,
  query: URLSearchParams,
): Record<string, unknown>[] | { status: 400 } {
  const limit = Number(query.get('limit') ?? 50);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) return { status: 400 };
  const before = query.get('before');
  const after = query.get('after');
  const id = (message: Record<string, unknown>) => BigInt(String(message.id));
  const inChannel = [...messages.values()].filter((message) => message.channel_id === channelId);
  // `after`: the `limit` oldest messages after it (still sent newest first, as Discord does).
  if (after !== null)
    return inChannel
      .filter((message) => id(message) > BigInt(after))
      .sort((a, b) => (id(a) > id(b) ? 1 : -1))
      .slice(0, limit)
      .reverse();
  return inChannel
    .filter((message) => before === null || id(message) < BigInt(before))
    .sort((a, b) => (id(b) > id(a) ? 1 : -1))
    .slice(0, limit);
}
