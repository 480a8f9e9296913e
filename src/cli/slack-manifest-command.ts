import { PLACEHOLDER_URL, slackManifestYaml } from '../setup/index.js';
import { printProblem } from './output.js';

/** `switchboard slack manifest`: the manifest as YAML on stdout, problems on stderr. */
export function runSlackManifest(options: {
  mode?: string;
  name?: string;
  command?: string;
  url?: string;
}): void {
  const mode = options.mode ?? 'socket';
  if (mode !== 'socket' && mode !== 'http') {
    printProblem(`--mode must be socket or http, not ${JSON.stringify(mode)}`);
    return;
  }
  const name = options.name ?? 'Switchboard';
  if (name.trim() === '' || name.length > 35) {
    printProblem(
      `--name must be 1 to 35 characters (Slack's limit for an app name), not ${JSON.stringify(name)}`,
    );
    return;
  }
  const command = options.command ?? '/switchboard';
  if (!/^\/[a-z0-9_-]{1,31}$/.test(command)) {
    printProblem(
      `--command must be a / and up to 31 lower-case letters, digits, - or _, not ${JSON.stringify(command)}`,
    );
    return;
  }
  if (options.url !== undefined && !/^https:\/\/[^/\s]+/.test(options.url)) {
    printProblem(`--url must be the gateway's public https:// address, not ${JSON.stringify(options.url)}`);
    return;
  }
  if (mode === 'http' && options.url === undefined)
    process.stderr.write(
      `No --url: the request URLs say ${PLACEHOLDER_URL}; put your gateway's address there.\n`,
    );
  process.stdout.write(slackManifestYaml({ mode, name, command, ...(options.url && { url: options.url }) }));
}
