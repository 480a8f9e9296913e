import { createHash } from 'node:crypto';
import type { RedisClientType } from '@keyv/redis';

/** The client `openRedisStore` connects (RESP2, no modules, scripts or functions). */
// biome-ignore lint/complexity/noBannedTypes: node-redis's own parameters for a client without modules
export type RedisClient = RedisClientType<{}, {}, {}, 2, {}>;

export interface RedisScript {
  source: string;
  sha: string;
}

function script(source: string): RedisScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * One page of a list (KEYS[1]): ARGV[1] members with their scores, highest score first and equal
 * scores by member, highest first (ZRANGE … REV). With a cursor (ARGV[2] its order, ARGV[3] its
 * key) the page starts after it: at the cursor's rank when it is still in the list at that order,
 * else by a binary search of the members that share the cursor's order (byte-wise, as Redis
 * orders them; Lua's `<` on strings follows the server's locale, so it is not used).
 */
export const PAGE_RANGE = script(`
local function below(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end
local list, count = KEYS[1], tonumber(ARGV[1])
local start = 0
if #ARGV == 3 then
  local order, key = tonumber(ARGV[2]), ARGV[3]
  local score = redis.call('ZSCORE', list, key)
  if score and tonumber(score) == order then
    start = redis.call('ZREVRANK', list, key) + 1
  else
    local low = redis.call('ZCOUNT', list, '(' .. ARGV[2], '+inf')
    local high = low + redis.call('ZCOUNT', list, ARGV[2], ARGV[2])
    while low < high do
      local middle = math.floor((low + high) / 2)
      if below(redis.call('ZRANGE', list, middle, middle, 'REV')[1], key) then
        high = middle
      else
        low = middle + 1
      end
    end
    start = low
  end
end
return redis.call('ZRANGE', list, start, start + count - 1, 'REV', 'WITHSCORES')
`);

/** Moves member ARGV[2] of list KEYS[1] to score ARGV[1] when its value (KEYS[2]) exists. */
export const TOUCH = script(`
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
end
return 0
`);

/**
 * Removes member ARGV[2i-1] of list KEYS[1] when it still has score ARGV[2i] and its value
 * (KEYS[i+1]) still does not exist: a write that re-added it meanwhile keeps it.
 */
export const REMOVE_MISSING = script(`
local removed = 0
for i = 2, #KEYS do
  local member = ARGV[2 * i - 3]
  local score = redis.call('ZSCORE', KEYS[1], member)
  if score and tonumber(score) == tonumber(ARGV[2 * i - 2]) and redis.call('EXISTS', KEYS[i]) == 0 then
    removed = removed + redis.call('ZREM', KEYS[1], member)
  end
end
return removed
`);

/** Runs a script by its SHA, sending its source once when the server does not know it yet. */
export async function runScript(
  client: RedisClient,
  { source, sha }: RedisScript,
  keys: string[],
  args: string[],
): Promise<unknown> {
  const options = { keys, arguments: args };
  try {
    return await client.evalSha(sha, options);
  } catch (error) {
    if (!String((error as Error)?.message).startsWith('NOSCRIPT')) throw error;
    return client.eval(source, options);
  }
}
