import type { FastifyInstance } from 'fastify';
/**
 * Each chat platform's connection state by name (`slack`, `discord`, `webchat`), as the channel
 * supervisor reports it: `connected`, or a word for why not (`connecting`, `retrying`, `refused`).
 * Declared here (http may not import channels); only `connected` means up.
 */
export type ChannelStates = () => Partial<Record<string, string>>;

/**
 * Whether the store answers a bounded probe: `ok`, `unreachable` (it failed) or `timeout` (no
 * answer in time). A word only: the error itself stays in the log and `/api/status`.
 */
export type StoreProbe = () => Promise<'ok' | 'unreachable' | 'timeout'>;

/**
 * Other components that are not ready (an MCP server: `mcp:<name>` and `connecting` or `failed`),
 * each with its state word; the gateway builds it from the live parts at each call.
 */
export type ComponentProblems = () => { component: string; state: string }[];

/**
 * The gateway runs in safe mode (the crash-loop breaker tripped): a cause word, how many unclean
 * starts, since when. Public, so no error text: the owner's `/rescue status` has the rest.
 */
export interface SafeModeView {
  cause: string;
  uncleanStarts: number;
  since: string;
}

/** The version this gateway runs (`/readyz`: the updater's watch waits for the target's commit). */
export interface RunningVersion {
  package?: string | undefined;
  commit?: string | undefined;
  tag?: string | undefined;
}

/** What both health endpoints answer: states only, never an address, a token or an error text. */
interface Health {
  status: 'ok' | 'degraded';
  /** `safe-mode` while the breaker holds the gateway there (`safeMode` says why), else `normal`. */
  mode: 'normal' | 'safe-mode';
  safeMode?: SafeModeView;
  channels: Partial<Record<string, string>>;
  /** Channels that are not connected, by name. */
  down: string[];
}

/** Why `/readyz` is 503: a component (`store`, a channel's name) and its state word. */
interface NotReadyReason {
  component: string;
  state: string;
}

function health(channels: ChannelStates | undefined, safeMode: SafeModeView | undefined): Health {
  const states = channels?.() ?? {};
  const down = Object.keys(states).filter((name) => states[name] !== 'connected');
  const status = down.length === 0 && !safeMode ? 'ok' : 'degraded';
  return safeMode
    ? { status, mode: 'safe-mode', safeMode, channels: states, down }
    : { status, mode: 'normal', channels: states, down };
}

/**
 * Public (no token), for load balancers and process managers:
 * - `/healthz` is liveness: 200 while the process serves, `degraded` naming the channels that
 *   are down (restarting would not bring a platform back; the gateway retries them itself);
 * - `/readyz` is readiness: 200 only while the store answers its probe and every configured
 *   channel and MCP server is connected, else 503 with `reasons` (component and state words);
 *   in safe mode 503 with the reason `safe-mode` and its cause word (the process serves: pm2 keeps it);
 *   `version` names the commit this gateway runs (what an update's watch waits for).
 * Why a channel or the store is down is in the log and `/api/status`, not here.
 */
export function registerHealthRoutes(
  app: FastifyInstance,
  options: {
    channels?: ChannelStates | undefined;
    store?: StoreProbe | undefined;
    components?: ComponentProblems | undefined;
    safeMode?: (() => SafeModeView | undefined) | undefined;
    version?: (() => RunningVersion | undefined) | undefined;
  },
): void {
  app.get('/healthz', { config: { public: true } }, async () =>
    health(options.channels, options.safeMode?.()),
  );
  app.get('/readyz', { config: { public: true } }, async (_request, reply) => {
    const safeMode = options.safeMode?.();
    const current = health(options.channels, safeMode);
    const store = options.store ? await options.store() : 'ok';
    const reasons: NotReadyReason[] = current.down.map((name) => ({
      component: name,
      state: current.channels[name] ?? 'unknown',
    }));
    if (store !== 'ok') reasons.unshift({ component: 'store', state: store });
    reasons.push(...(options.components?.() ?? []));
    if (safeMode) reasons.unshift({ component: 'safe-mode', state: safeMode.cause });
    const ready = reasons.length === 0;
    const version = options.version?.();
    return reply
      .code(ready ? 200 : 503)
      .send({ ready, ...current, store, reasons, ...(version ? { version } : {}) });
  });
  // Browsers ask for it on every page; an empty answer keeps their consoles free of 404s.
  app.get('/favicon.ico', { config: { public: true } }, async (_request, reply) => reply.code(204).send());
}
