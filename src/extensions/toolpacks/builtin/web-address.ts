import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { fail, ok, type Result } from '../../../base/errors/index.js';

/**
 * Which addresses `web.fetch` refuses unless `tools.web.allowPrivate`: everything that is not the
 * public internet. IPv4-mapped and NAT64 IPv6 addresses are judged by the IPv4 address they carry.
 */
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::', 96], // IPv4-compatible (deprecated)
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** `localhost` and its subdomains never leave the machine, whatever DNS says. */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** Whether an IP literal is loopback, private, link-local, unique-local or otherwise not public. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return blocked.check(bare, 'ipv4');
  if (family !== 6) return true;
  const embedded = embeddedIPv4(bare);
  if (embedded !== undefined) return blocked.check(embedded, 'ipv4');
  return blocked.check(bare, 'ipv6');
}

/** The IPv4 address inside `::ffff:a.b.c.d` (mapped) or `64:ff9b::a.b.c.d` (NAT64), if any. */
function embeddedIPv4(address: string): string | undefined {
  // The URL parser writes IPv6 in one canonical, compressed, lowercase form.
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const match = /^(::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!match) return undefined;
  const high = Number.parseInt(match[2] ?? '0', 16);
  const low = Number.parseInt(match[3] ?? '0', 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

export interface CheckedHost {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves a URL's host (every address DNS returns) and refuses it when any address is not public,
 * unless `allowPrivate`. The caller connects to the returned address only, so a second DNS answer
 * (rebinding) cannot swap in another.
 */
export async function checkHost(hostname: string, allowPrivate: boolean): Promise<Result<CheckedHost>> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isLocalhostName(bare)) {
    return fail(`${hostname} is this machine; web.fetch reaches public addresses only`);
  }
  const literal = isIP(bare);
  let addresses: { address: string; family: number }[];
  if (literal !== 0) {
    addresses = [{ address: bare, family: literal }];
  } else {
    try {
      addresses = await lookup(bare, { all: true, verbatim: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'lookup failed';
      return fail(`cannot resolve ${hostname} (${code})`);
    }
  }
  const first = addresses[0];
  if (first === undefined) return fail(`cannot resolve ${hostname} (no addresses)`);
  if (!allowPrivate) {
    const refused = addresses.find((entry) => isPrivateAddress(entry.address));
    if (refused) {
      const via = literal !== 0 ? '' : ` (${hostname} resolves to it)`;
      return fail(
        `${refused.address}${via} is a loopback, private or link-local address; web.fetch reaches public addresses only`,
      );
    }
  }
  return ok({ address: first.address, family: first.family === 6 ? 6 : 4 });
}
