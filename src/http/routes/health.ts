import type { FastifyInstance } from 'fastify';
/**
 * Each chat platform's connection state by name (`slack`, `discord`, `webchat`), as the channel
 * supervisor reports it: `connected`, or a word for why not (`connecting`, `retrying`, `refused`).
 * Declared here (http may not import channels); only `connected` means up.
 */
export type ChannelStates = () => Partial<Record<string, string>>;

/** What both health endpoints answer: states only, never a reason, an address or a token. */
interface Health {
  status: 'ok' | 'degraded';
  channels: Partial<Record<string, string>>;
  /** Channels that are not connected, by name. */
  down: string[];
}

function health(channels: ChannelStates | undefined): Health {
  const states = channels?.() ?? {};
  const down = Object.keys(states).filter((name) => states[name] !== 'connected');
  return { status: down.length === 0 ? 'ok' : 'degraded', channels: states, down };
}

/**
 * Public (no token), for load balancers and process managers:
 * - `/healthz` is liveness: 200 while the process serves, `degraded` naming the channels that
 *   are down (restarting would not bring a platform back; the gateway retries them itself);
 * - `/readyz` is readiness: 200 only while every configured channel is connected, else 503.
 * Why a channel is down is in the log and `switchboard doctor`, not here.
 */
export function registerHealthRoutes(app: FastifyInstance, channels?: ChannelStates): void {
  app.get('/healthz', { config: { public: true } }, async () => health(channels));
  app.get('/readyz', { config: { public: true } }, async (_request, reply) => {
    const current = health(channels);
    return reply
      .code(current.down.length === 0 ? 200 : 503)
      .send({ ready: current.down.length === 0, ...current });
  });
  // Browsers ask for it on every page; an empty answer keeps their consoles free of 404s.
  app.get('/favicon.ico', { config: { public: true } }, async (_request, reply) => reply.code(204).send());
}
