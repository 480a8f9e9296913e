import { readFile } from 'node:fs/promises';
import { networkInterfaces } from 'node:os';
import path from 'node:path';
import type { Config } from '../base/config/index.js';
import { fail, ok, type Result } from '../base/errors/index.js';

/**
 * How this machine reaches the gateway of `config` with its operator token (`http.token`, else
 * `<stateDir>/http-token`): its URL and the header, or why it cannot be asked.
 */
export async function reachGateway(
  config: Config,
): Promise<Result<{ url: string; headers: { authorization: string } }, string>> {
  const host = localAddress(config.http.host);
  if (!host) return fail(`${config.http.host} is not an address of this machine`);
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${config.http.port}`;
  const token = config.http.token ?? (await readTokenFile(config.stateDir));
  if (!token) return fail(`no token file in ${config.stateDir}`);
  return ok({ url, headers: { authorization: `Bearer ${token}` } });
}

async function readTokenFile(stateDir: string): Promise<string | undefined> {
  const text = await readFile(path.join(path.resolve(stateDir), 'http-token'), 'utf8').catch(() => '');
  return text.trim() || undefined;
}

/**
 * Where to reach a gateway bound to `host` from this machine: loopback for a loopback or
 * wildcard bind, the address itself when it is one of this machine's; otherwise undefined (the
 * token is sent only to this machine).
 */
function localAddress(host: string): string | undefined {
  if (host === '0.0.0.0' || host === 'localhost' || host === '') return '127.0.0.1';
  if (host === '::') return '::1';
  const own = Object.values(networkInterfaces())
    .flat()
    .map((entry) => entry?.address);
  return own.includes(host) ? host : undefined;
}
