import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';

/**
 * Questions asked on the terminal, one line each (node:readline: no dependency, and a guide of
 * numbered choices and plain lines reads the same in a pty, a pipe and a screen reader). A secret
 * is typed without echo. The input ending (Ctrl-D, a closed pipe) rejects the pending question;
 * Ctrl-C ends the process with exit code 130.
 */
export interface Prompter {
  say(text: string): void;
  /** The trimmed answer, or `fallback` for an empty one. */
  ask(question: string, options?: { fallback?: string; secret?: boolean }): Promise<string>;
  /** One of `choices` by its number (1-based); Enter takes `fallback` (an index). */
  choose<Value>(
    question: string,
    choices: readonly { label: string; value: Value }[],
    fallback: number,
  ): Promise<Value>;
  confirm(question: string, fallback: boolean): Promise<boolean>;
  close(): void;
}

export function createTerminalPrompter(options: { onInterrupt: () => void }): Prompter {
  let muted = false;
  // While a secret is typed, what readline echoes is dropped; everything else goes to stdout.
  const output = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) process.stdout.write(chunk);
      done();
    },
  });
  const lines = createInterface({
    input: process.stdin,
    output,
    terminal: process.stdin.isTTY === true,
  });
  const ended = new AbortController();
  lines.on('close', () => ended.abort(new Error('the input ended before the guide was done')));
  lines.on('SIGINT', () => {
    process.stdout.write('\n');
    options.onInterrupt();
  });
  const question = async (prompt: string): Promise<string> => {
    if (ended.signal.aborted) throw ended.signal.reason;
    return lines.question(prompt, { signal: ended.signal });
  };
  const prompter: Prompter = {
    say: (text) => process.stdout.write(`${text}\n`),
    async ask(text, { fallback, secret } = {}) {
      const prompt = `${text}${fallback ? ` [${fallback}]` : ''}: `;
      let answer: string;
      if (secret) {
        process.stdout.write(prompt);
        muted = true;
        try {
          answer = await question('');
        } finally {
          muted = false;
          process.stdout.write('\n');
        }
      } else answer = await question(prompt);
      return answer.trim() || fallback || '';
    },
    async choose(text, choices, fallback) {
      prompter.say(text);
      for (const [index, choice] of choices.entries()) prompter.say(`  ${index + 1}) ${choice.label}`);
      for (;;) {
        const answer = await prompter.ask('Number', { fallback: String(fallback + 1) });
        const chosen = choices[Number(answer) - 1];
        if (/^[0-9]+$/.test(answer) && chosen) return chosen.value;
        prompter.say(`Type a number from 1 to ${choices.length}.`);
      }
    },
    async confirm(text, fallback) {
      for (;;) {
        const answer = (await prompter.ask(`${text} ${fallback ? '[Y/n]' : '[y/N]'}`)).toLowerCase();
        if (answer === '') return fallback;
        if (['y', 'yes'].includes(answer)) return true;
        if (['n', 'no'].includes(answer)) return false;
        prompter.say('Type y or n.');
      }
    },
    close: () => lines.close(),
  };
  return prompter;
}
