import {
  type Config,
  findLooseConfigFile,
  type LoadedConfig,
  modeText,
  OPERATOR_ID,
} from '../base/config/index.js';
import { describeStoreUrl, probeRedisWithoutPassword } from '../records/store/index.js';
import type { SchedulerHookView } from '../surfaces/control/index.js';
import { reachGateway } from './running-gateway.js';

const ASK_TIMEOUT_MS = 3000;

/** One line of doctor's output: information on stdout, a warning on stderr. */
export interface DoctorLine {
  warning: boolean;
  text: string;
}

/**
 * Doctor's look at the deployment around the config: whether the Redis store answers without a
 * password, and, when a gateway is running on this config's address, its toolpacks' scheduler
 * hooks (asked with the token from `http.token` or `<stateDir>/http-token`). Both are warnings:
 * the gateway starts anyway, so they do not change doctor's exit code.
 */
export async function checkDeployment(config: Config): Promise<DoctorLine[]> {
  return [...(await checkRedisPassword(config.store.url)), ...(await askRunningGateway(config))];
}

/**
 * A config file holding a secret written out that group or others may read: a warning naming the
 * file, its mode and the fix (a start makes it 0600 itself, so the exit code does not change).
 */
export async function checkConfigFileMode(loaded: LoadedConfig): Promise<DoctorLine[]> {
  const loose = await findLooseConfigFile(loaded);
  if (!loose) return [];
  return [
    {
      warning: true,
      text: `config: ${loose.file} holds secrets and is readable by group or others (mode ${modeText(loose.mode)}): run chmod 600 ${loose.file} (switchboard start does it and logs it)`,
    },
  ];
}

/**
 * `owners` without webchat:local: whoever signs in with the HTTP token (the web chat, the control
 * UI) is no owner, and the Config page says it is not for role member. A warning: it may be meant.
 */
export function checkOperatorOwner(config: Config): DoctorLine[] {
  if (config.owners.includes(OPERATOR_ID)) return [];
  return [
    {
      warning: true,
      text: `owners: ${OPERATOR_ID} is not an owner, so whoever signs in with the HTTP token (the web chat, the control UI) cannot change the config or run owner commands; add "${OPERATOR_ID}" to owners unless that is meant (switchboard config patch '{"owners":[${[OPERATOR_ID, ...config.owners].map((owner) => JSON.stringify(owner)).join(',')}]}')`,
    },
  ];
}

/** Prints the lines: warnings on stderr with `warning: `, the rest on stdout. */
export function printDoctorLines(lines: readonly DoctorLine[]): void {
  for (const line of lines) {
    if (line.warning) process.stderr.write(`warning: ${line.text}\n`);
    else process.stdout.write(`${line.text}\n`);
  }
}

async function checkRedisPassword(url: string | undefined): Promise<DoctorLine[]> {
  if (!url || !/^rediss?:\/\//.test(url)) return [];
  const location = describeStoreUrl(url);
  const probe = await probeRedisWithoutPassword(url);
  // Unreachable: the start check reports that; nothing to add about passwords.
  if (!probe.ok) return [];
  if (probe.value.needsPassword) return [{ warning: false, text: `store: ${location} requires a password` }];
  return [
    {
      warning: true,
      text: `store: the Redis server at ${location} accepts connections without a password: anyone who can reach it reads every transcript. Set requirepass (or an ACL user) and put it in store.url as redis://:<password>@host:port`,
    },
  ];
}

async function askRunningGateway(config: Config): Promise<DoctorLine[]> {
  const reach = await reachGateway(config);
  if (!reach.ok) return [{ warning: false, text: `gateway: ${reach.error}; not asked` }];
  const { url, headers } = reach.value;
  let response: Response;
  try {
    response = await fetch(`${url}/api/toolpacks`, { headers, signal: AbortSignal.timeout(ASK_TIMEOUT_MS) });
  } catch {
    return [{ warning: false, text: `gateway: none running at ${url}; scheduler hooks not checked` }];
  }
  if (!response.ok) {
    return [{ warning: true, text: `gateway at ${url} answered ${response.status} to GET /api/toolpacks` }];
  }
  const report = (await response.json().catch(() => ({}))) as ToolpacksReportView;
  const hooks = report.schedulerHooks ?? [];
  const failing = hooks.filter((hook) => hook.status === 'failing');
  const hookLines =
    failing.length === 0
      ? [{ warning: false, text: `gateway: running at ${url}; scheduler hooks ok (${hooks.length})` }]
      : failing.map((hook) => ({
          warning: true,
          text: `gateway at ${url}: the ${hook.toolpackId} scheduler hook is failing (${hook.failures} failures in a row since ${hook.since}; next try in ${hook.backoffMs} ms): ${hook.error}`,
        }));
  return [...hookLines, ...unprovidedLines(url, report)];
}

interface ToolpacksReportView {
  schedulerHooks?: SchedulerHookView[];
  toolpacks?: { id: string; notProvided?: string[] }[];
}

/** A warning per toolpack whose controller reaches for a Suzumio-internal API not provided (`store.db`). */
function unprovidedLines(url: string, report: ToolpacksReportView) {
  return (report.toolpacks ?? [])
    .filter((toolpack) => (toolpack.notProvided ?? []).length > 0)
    .map((toolpack) => ({
      warning: true,
      text: `gateway at ${url}: the ${toolpack.id} toolpack reaches for ${(toolpack.notProvided ?? []).join(', ')}, which Switchboard does not provide (undefined); docs/toolpack-store.md lists the store a toolpack may use`,
    }));
}
