import { Command } from 'commander';
import { runDoctor } from './doctor.js';
import { runStart } from './start.js';

export async function runCli(argv: readonly string[]): Promise<void> {
  const program = new Command()
    .name('switchboard')
    .description('Chat-ops gateway: Slack, Discord and a built-in web chat in front of LLM agent sessions.');
  const configOption = [
    '-c, --config <path>',
    'config file (default: $SWITCHBOARD_CONFIG or config/gateway.jsonc)',
  ] as const;
  program
    .command('start')
    .description('start the gateway (SIGUSR1 restarts it in-process, SIGTERM/SIGINT stop it)')
    .option(...configOption)
    .action(runStart);
  program
    .command('doctor')
    .description('validate the config without starting anything')
    .option(...configOption)
    .action(runDoctor);
  await program.parseAsync([...argv]);
}
