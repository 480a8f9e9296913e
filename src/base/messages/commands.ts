/**
 * A chat command as a platform's own command menu shows it (Slack's slash command, Discord's
 * application commands): its name, one line, who may use it and its typed options. The router's
 * command table has these fields; adapters register and read commands from them alone.
 */
export interface NativeCommand {
  name: string;
  /** One line for /help (cut to the platform's limit where it has one). */
  summary: string;
  ownerOnly?: boolean;
  /**
   * Typed options, in the order the text command takes its words: `/subagents kill target:` is
   * `/subagents kill <target>`. Absent: one optional free-text option, the words after the name.
   */
  options?: readonly CommandOption[];
}

/**
 * One option of a native command. A `subcommand` is a word (its `name`) followed by its own
 * options; a `text` option is one value (the last one of a command takes the rest of the line).
 */
export interface CommandOption {
  kind: 'subcommand' | 'text';
  name: string;
  description: string;
  /** For `text` options: the command cannot run without it. */
  required?: boolean;
  /** For a `subcommand`: its own options, in order. */
  options?: readonly CommandOption[];
}
