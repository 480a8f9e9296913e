import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import pTimeout from 'p-timeout';
import type { Config } from '../base/config/index.js';
import { type ConfigIssue, errorText } from '../base/errors/index.js';

/** A name that does not resolve in this time is reported, not waited on. */
const LOOKUP_TIMEOUT_MS = 5000;
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
