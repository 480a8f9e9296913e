import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';

export { holdYoungGeneration } from './young-generation.js';

/**
 * Each command's module is imported when the command runs: `config get|patch` then loads the
 * config code only (about 0.3 s of CPU), not the gateway, Slack and Discord (about 1.8 s).
 */
const runStart = async (...args: Parameters<typeof import('./start.js').runStart>) =>
  (await import('./start.js')).runStart(...args);
const runDoctor = async (...args: Parameters<typeof import('./doctor.js').runDoctor>) =>
  (await import('./doctor.js')).runDoctor(...args);
const runAgents = async (...args: Parameters<typeof import('./agents.js').runAgents>) =>
  (await import('./agents.js')).runAgents(...args);
const runConfigGet = async (...args: Parameters<typeof import('./config.js').runConfigGet>) =>
  (await import('./config.js')).runConfigGet(...args);
const runConfigPatch = async (...args: Parameters<typeof import('./config.js').runConfigPatch>) =>
  (await import('./config.js')).runConfigPatch(...args);
const runSlackManifest = async (
  ...args: Parameters<typeof import('./slack-manifest-command.js').runSlackManifest>
) => (await import('./slack-manifest-command.js')).runSlackManifest(...args);
const runRestart = async (...args: Parameters<typeof import('./restart.js').runRestart>) =>
  (await import('./restart.js')).runRestart(...args);
const runLogs = async (...args: Parameters<typeof import('./logs.js').runLogs>) =>
  (await import('./logs.js')).runLogs(...args);
const runSetup = async (...args: Parameters<typeof import('./setup.js').runSetup>) =>
  (await import('./setup.js')).runSetup(...args);
const runDiscordInvite = async (
  ...args: Parameters<typeof import('./discord-invite-command.js').runDiscordInvite>
) => (await import('./discord-invite-command.js')).runDiscordInvite(...args);

const updateCommand = async <Name extends 'runUpdateCheck' | 'runUpdateRun' | 'runUpdateStatus'>(
  name: Name,
  ...args: Parameters<typeof import('./update.js')[Name]>
) => (await import('./update.js'))[name](...(args as [never]));
const runUpdateApply = async (...args: Parameters<typeof import('./update.js').runUpdateApply>) =>
  (await import('./update.js')).runUpdateApply(...args);

/** `--env-file`, on every command that reads the config (`cli-environment.ts` reads it). */
const ENV_FILE_OPTION = [
  '--env-file <path>',
  'variables for ${NAME} references in the config (default: $SWITCHBOARD_ENV_FILE or data/.env; the environment wins)',
] as const;

export async function runCli(argv: readonly string[]): Promise<void> {
  const program = new Command()
    .name('switchboard')
    .description('Chat-ops gateway: Slack, Discord and a built-in web chat in front of LLM agent sessions.')
    .version(packageVersion(), '-V, --version', 'print the version and exit');
  const configOption = [
    '-c, --config <path>',
    'config file (default: $SWITCHBOARD_CONFIG or config/gateway.jsonc)',
  ] as const;
  program
    .command('start')
    .description('start the gateway (SIGUSR1 restarts it in-process, SIGTERM/SIGINT stop it)')
    .option(...configOption)
    .option(...ENV_FILE_OPTION)
    .action(runStart);
  program
    .command('restart')
    .description(
      "restart the running gateway in-process (SIGUSR1 to the pid in gateway.pid in the config's state dir); with --notify, a note to a chat after it",
    )
    .option(...configOption)
    .option(...ENV_FILE_OPTION)
    .option('--pid <pid>', "the gateway's pid (default: read from gateway.pid in the config's state dir)")
    .option('--note <text>', 'the note posted after the restart (with --notify)')
    .option(
      '--notify <route>',
      'post a note to this chat once after the restart (webchat:<user>, slack:<channel>, discord:<channel>)',
    )
    .action(runRestart);
  program
    .command('doctor')
    .description('validate the config without starting anything')
    .option(...configOption)
    .option(...ENV_FILE_OPTION)
    .action(runDoctor);
  program
    .command('agents')
    .description(
      'list each agent, its model chain and its risk summary (what its tools may do), without starting anything',
    )
    .option(...configOption)
    .option(...ENV_FILE_OPTION)
    .action(runAgents);
  const config = program
    .command('config')
    .description('read or change the config file (secrets stay redacted)');
  config
    .command('get [path]')
    .description('print the config file as JSON with secrets redacted, or the value at a dot path')
    .option(...configOption)
    .option(...ENV_FILE_OPTION)
    .action(runConfigGet);
  config
    .command('patch <json>')
    .description('merge-patch the config file (JSON or JSON5; null deletes a key); validated before writing')
    .option(...configOption)
    .option(...ENV_FILE_OPTION)
    .option('--note <text>', 'why, for the audit log (and the note --notify posts)')
    .option(
      '--notify <route>',
      'post a note to this chat after the next restart (webchat:<user>, slack:<channel>)',
    )
    .option(
      '--replace <path...>',
      'dot paths the patch replaces whole: an array there is not merged by id (to remove a toolpack entry)',
    )
    .option(
      '--allow-operator-lockout',
      'write owners without webchat:local (whoever signs in with the HTTP token then is no owner); refused without it',
    )
    .action(runConfigPatch);
  program
    .command('logs')
    .description("print the last lines of the log, readable: log.file's current file, else pm2's out log")
    .option(...configOption)
    .option(...ENV_FILE_OPTION)
    .option('-n, --lines <count>', 'how many lines', '20')
    .option('-f, --follow', 'go on printing lines as they are written (across rotations) until Ctrl-C')
    .option('--err', "read pm2's error log instead (start failures, crashes)")
    .action(runLogs);
  addSetupCommands(program);
  addSetupGuide(program, configOption);
  addUpdateCommands(program, configOption);
  await program.parseAsync([...argv]);
}

/** package.json's version, read when asked: from `dist/cli/` (and `src/cli/`) it is two levels up. */
function packageVersion(): string {
  try {
    const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
    return String((JSON.parse(text) as { version?: unknown }).version);
  } catch (error) {
    // Every command reads it (commander wants the text up front): a missing file must not stop them.
    return `unknown (package.json not readable: ${(error as Error).message})`;
  }
}

/** `slack manifest` and `discord invite`: what to create on each platform; neither reads the config. */
function addSetupCommands(program: Command): void {
  program
    .command('slack')
    .description('set up the Slack app')
    .command('manifest')
    .description('print the Slack app manifest (YAML): scopes, events, interactivity, the slash command')
    .option('--mode <mode>', 'socket (default) or http', 'socket')
    .option('--name <name>', "the app's name in Slack", 'Switchboard')
    .option('--command <command>', 'the slash command (channels.slack.slashCommand)', '/switchboard')
    .option(
      '--url <url>',
      "http mode: the gateway's public https:// address (Slack posts to <url>/slack/events)",
    )
    .action(runSlackManifest);
  program
    .command('discord')
    .description('set up the Discord application')
    .command('invite')
    .description('print the bot invite URL, its scopes and permissions, and the intents to switch on')
    .option('--client-id <id>', "the application's Application ID (Developer Portal, General Information)")
    .option('--guild <id>', 'preselect this server in the invite')
    .action(runDiscordInvite);
}

/** `setup`: the guide from nothing to a config that answers (docs/setup.md). */
function addSetupGuide(program: Command, configOption: readonly [string, string]): void {
  program
    .command('setup')
    .description(
      'a guide in the terminal: the model, Slack, Discord and the owners; writes the config and the secrets (env file, 0600). Run again to add a platform',
    )
    .option(...configOption)
    .option(...ENV_FILE_OPTION)
    .option(
      '--non-interactive',
      'ask nothing: answers from these flags, secrets from the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY, MODEL_API_KEY, SLACK_BOT_TOKEN, SLACK_APP_TOKEN, DISCORD_TOKEN)',
    )
    .option('--model <kind>', 'openai, anthropic, compatible (an OpenAI-compatible server) or keep')
    .option('--model-id <id>', 'the model id (default gpt-4o-mini, claude-sonnet-4-5, llama3.1)')
    .option('--base-url <url>', 'the OpenAI-compatible server (default http://127.0.0.1:11434/v1, Ollama)')
    .option('--slack', 'connect Slack (Socket Mode)')
    .option('--discord', 'connect Discord')
    .option('--owner <id...>', 'owners besides webchat:local (slack:U…, discord:<id>, webchat:<user>)')
    .addOption(new Option('--slack-api-url <url>', "Slack's Web API address (tests)").hideHelp())
    .addOption(new Option('--discord-api-base <url>', "Discord's API address (tests)").hideHelp())
    .action(runSetup);
}

/** `update check|run|status` (docs/updating.md); `update apply` is the updater `update run` starts. */
function addUpdateCommands(program: Command, configOption: readonly [string, string]): void {
  const envFileOption = ENV_FILE_OPTION;
  const update = program
    .command('update')
    .description(
      'update the gateway from its configured git source: proved first, switched, watched, rolled back by itself',
    );
  update
    .command('check')
    .description(
      'fetch the source and list the commits the update brings, and whether the lockfile or config schema changed',
    )
    .option(...configOption)
    .option(...envFileOption)
    .action((options) => updateCommand('runUpdateCheck', options));
  update
    .command('run')
    .description(
      "update the running gateway (pid from gateway.pid in the config's state dir), printing each phase until the outcome",
    )
    .option(...configOption)
    .option(...envFileOption)
    .option(
      '--notify <route>',
      'post the outcome to this chat too (webchat:<user>, slack:<channel>, discord:<channel>)',
    )
    .option(
      '--target <commit>',
      'a commit or tag to update to instead of the head (to retry a version that rolled back)',
    )
    .action((options) => updateCommand('runUpdateRun', options));
  update
    .command('status')
    .description('the last update run: phases and times, cause, rollback')
    .option(...configOption)
    .option(...envFileOption)
    .action((options) => updateCommand('runUpdateStatus', options));
  update
    .command('apply <run>', { hidden: true })
    .description('the updater process that `update run` starts (not for use by hand)')
    .requiredOption('--state-dir <dir>', 'the state dir holding the update ledger')
    .action(runUpdateApply);
}
