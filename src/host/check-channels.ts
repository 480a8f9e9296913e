import type { Config } from '../base/config/index.js';
import type { ConfigIssue } from '../base/errors/index.js';
import { type ChannelCredentialCheck, checkChannelCredentials } from '../surfaces/channels/index.js';

/** Which platforms a start check asks: those whose connection changed, every configured one, or none. */
export type ChannelCheckScope = 'changed' | 'all' | 'none';

export interface ChannelCheckOptions {
  scope: ChannelCheckScope;
  /** What the gateway connects with now; without it every configured channel counts as changed. */
  running: Config | undefined;
  /**
   * False when the edit came from the model (the gateway tool): then a channel is tried only at
   * an address the running config already uses (or the platform's own default), so that the
   * tokens never go to an address the model chose.
   */
  mayUseNewAddresses: boolean;
}

/** The fields each channel connects with; a change in any of them asks the platform again. */
const CONNECTION_FIELDS = {
  slack: ['mode', 'botToken', 'appToken', 'apiUrl'],
  discord: ['token', 'apiBase'],
} as const;
/** The field that says where a channel's credentials are sent. */
const ADDRESS_FIELD = { slack: 'apiUrl', discord: 'apiBase' } as const;

/**
 * Asks Slack and Discord whether they accept the credentials, for the channels in scope. A
 * refused token or an unreachable platform is an issue at `/channels/<name>`: after a restart
 * that channel (perhaps the one the owner is typing in) would be gone. A channel the rule on
 * addresses keeps from being tried is an issue at its address field, and nothing is sent.
 */
export async function checkChannels(
  next: Config,
  options: ChannelCheckOptions,
): Promise<{ issues: ConfigIssue[]; checks: ChannelCredentialCheck[] }> {
  if (options.scope === 'none') return { issues: [], checks: [] };
  const issues: ConfigIssue[] = [];
  const wanted = (name: 'slack' | 'discord') => {
    const value = next.channels[name];
    if (!value) return undefined;
    const before = options.running?.channels[name];
    if (options.scope === 'changed' && before && !changed(value, before, CONNECTION_FIELDS[name]))
      return undefined;
    const address = (value as Record<string, unknown>)[ADDRESS_FIELD[name]];
    const known =
      address === undefined ||
      address === (before as Record<string, unknown> | undefined)?.[ADDRESS_FIELD[name]];
    if (!options.mayUseNewAddresses && !known) {
      issues.push({
        path: `/channels/${name}/${ADDRESS_FIELD[name]}`,
        message: `not tried: the running config does not send the ${name} credentials to ${String(address)}, and an address for them is an owner's to choose (/config patch, switchboard config patch, or the file)`,
      });
      return undefined;
    }
    return value;
  };
  const slack = wanted('slack') as Config['channels']['slack'];
  const discord = wanted('discord') as Config['channels']['discord'];
  const checks = await checkChannelCredentials({ slack, discord });
  for (const { channel, result } of checks) {
    if (!result.ok) issues.push({ path: `/channels/${channel}`, message: result.error });
  }
  return { issues, checks };
}

/** True when any connection field differs (compared as JSON). */
function changed(value: object, before: object, keys: readonly string[]): boolean {
  const pick = (source: object) =>
    JSON.stringify(keys.map((key) => (source as Record<string, unknown>)[key]));
  return pick(value) !== pick(before);
}
