import { errorText, fail, ok, type Result } from '../../base/errors/index.js';
import { CONNECT_TIMEOUT_MS, describeRedis } from './redis-url.js';

/**
 * Whether the Redis server `url` names answers a client that sends no password (doctor warns:
 * anyone who can reach the port can read every transcript). Connects once, without the URL's
 * credentials and without retries; the error of a failure names the server, never the password.
 */
export async function probeRedisWithoutPassword(url: string): Promise<Result<{ needsPassword: boolean }>> {
  const location = describeRedis(url);
  const { createClient } = await import('@keyv/redis');
  const client = createClient({
    url: location,
    socket: { connectTimeout: CONNECT_TIMEOUT_MS, reconnectStrategy: false },
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    return ok({ needsPassword: false });
  } catch (error) {
    const message = errorText(error);
    if (/NOAUTH|WRONGPASS/.test(message)) return ok({ needsPassword: true });
    return fail(`cannot connect to ${location}: ${message}`);
  } finally {
    if (client.isOpen) client.destroy();
  }
}
