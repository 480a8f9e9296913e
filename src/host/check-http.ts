import { lookup } from 'node:dns/promises';
import { createServer, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import pTimeout from 'p-timeout';
import type { Config } from '../base/config/index.js';
import { type ConfigIssue, errorText } from '../base/errors/index.js';
import { readGatewayPid } from './pid-file.js';

/** A name that does not resolve in this time is reported, not waited on. */
const LOOKUP_TIMEOUT_MS = 5000;
/** How long the program holding the port has to answer `/healthz`. */
const PROBE_TIMEOUT_MS = 3000;
const WILDCARDS = new Set(['0.0.0.0', '::', '']);

/**
 * `http.host` must be an address of this machine (or the wildcard): the server cannot bind any
 * other, and a start that cannot bind fails after the check. An IP is compared with the
 * machine's interfaces (any 127.x and ::1 are loopback); a name must resolve to one of them.
 */
export async function checkHttpHost(config: Config): Promise<ConfigIssue[]> {
  const host = config.http.host;
  if (WILDCARDS.has(host)) return [];
  let addresses: string[];
  try {
    addresses = isIP(host)
      ? [host]
      : (
          await pTimeout(lookup(host, { all: true }), {
            milliseconds: LOOKUP_TIMEOUT_MS,
            message: `no answer within ${LOOKUP_TIMEOUT_MS / 1000} s`,
          })
        ).map((entry) => entry.address);
  } catch (error) {
    return [
      {
        path: '/http/host',
        message: `${host} does not resolve (${errorText(error)}); use an address of this machine, e.g. 127.0.0.1`,
      },
    ];
  }
  if (addresses.some(isLocalAddress)) return [];
  return [
    {
      path: '/http/host',
      message: `${host} is not an address of this machine (it has ${localAddresses().join(', ')}); the server could not bind it`,
    },
  ];
}

function localAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((entries) =>
    (entries ?? []).map((entry) => entry.address),
  );
}

function isLocalAddress(address: string): boolean {
  const plain = address
    .toLowerCase()
    .replace(/^::ffff:(?=\d+\.)/, '')
    .replace(/%.*$/, '');
  if (WILDCARDS.has(plain) || plain.startsWith('127.') || plain === '::1') return true;
  return localAddresses().some((local) => local.toLowerCase().replace(/%.*$/, '') === plain);
}

/**
 * A first start's port check, before anything connects to a platform: `http.port` on `http.host`
 * must be free. Taken by a gateway (its `/healthz` answers as one), the issue names it with the pid
 * from `<stateDir>/gateway.pid`; taken by anything else, it says so. Other bind errors are left to
 * the start itself.
 */
export async function checkHttpPort(config: Config): Promise<ConfigIssue[]> {
  const { host, port } = config.http;
  if (port === 0 || !(await isPortTaken(host, port))) return [];
  const where = `${host}:${port}`;
  const change = 'or set http.port to a free port';
  if (!(await answersAsGateway(host, port))) {
    return [
      {
        path: '/http/port',
        message: `${where} is taken by another program (not a Switchboard gateway); stop it, ${change}`,
      },
    ];
  }
  const pid = await readGatewayPid(config.stateDir);
  const which = pid.ok
    ? `(pid ${pid.value}); stop it first (\`npx pm2 ls\` under pm2, else Ctrl-C in its terminal or \`kill ${pid.value}\`)`
    : `(its pid is not in ${config.stateDir}: it runs with another state dir); stop it first (\`npx pm2 ls\` under pm2)`;
  return [{ path: '/http/port', message: `a gateway already answers on ${where} ${which}, ${change}` }];
}

/** Whether binding `host:port` fails with EADDRINUSE (the server is closed again at once). */
function isPortTaken(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'EADDRINUSE'));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(false)));
  });
}

/** Whether `/healthz` on the port answers with a gateway's health (status, mode, channels). */
async function answersAsGateway(host: string, port: number): Promise<boolean> {
  const address = WILDCARDS.has(host) ? '127.0.0.1' : isIP(host) === 6 ? `[${host}]` : host;
  try {
    const response = await fetch(`http://${address}:${port}/healthz`, {
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    const body = (await response.json()) as Record<string, unknown>;
    return (
      typeof body.status === 'string' && typeof body.mode === 'string' && typeof body.channels === 'object'
    );
  } catch {
    return false;
  }
}
