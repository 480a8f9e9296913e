import { type ChildProcess, spawn } from 'node:child_process';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { errorText } from '../../base/errors/index.js';
import { answerTooLarge, MAX_ANSWER_BYTES } from './answer-limit.js';
import { killGroup, type ProcessGroups } from './process-groups.js';

/** How long a server has to exit after its input ends, then after SIGTERM, before its group is killed. */
const EXIT_GRACE_MS = 2000;

/** What the SDK's stdio transport passes on by default (as sudo does): the rest comes from `env`. */
const INHERITED_ENV = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

export interface StdioServerOptions {
  /** The server's name in config, for messages. */
  server: string;
  command: string;
  args: readonly string[];
  /** On top of the inherited PATH, HOME…; a value of `()…` (a shell function) is never inherited. */
  env: Readonly<Record<string, string>>;
  cwd?: string | undefined;
  /** Each chunk of the server's stderr. */
  stderr(text: string): void;
  /** Where started process groups are recorded (the gateway's state dir), so a later start can reap them. */
  groups?: ProcessGroups | undefined;
  maxAnswerBytes?: number;
}

/**
 * An MCP stdio server as a transport of the SDK's `Client`, in place of the SDK's
 * `StdioClientTransport`: the server runs in a process group of its own (recorded, so that one left
 * behind by a gateway killed with SIGKILL is reaped at the next start), the whole group is ended
 * with it, and an answer over `maxAnswerBytes` is named as such (`closeReason`) instead of a closed
 * connection. A server that ignores the end of its input gets SIGTERM, then SIGKILL.
 */
export class StdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #options: StdioServerOptions;
  readonly #maxBytes: number;
  #child: ChildProcess | undefined;
  #exited: Promise<void> | undefined;
  #chunks: Buffer[] = [];
  #pending = 0;
  #closeReason: string | undefined;

  constructor(options: StdioServerOptions) {
    this.#options = options;
    this.#maxBytes = options.maxAnswerBytes ?? MAX_ANSWER_BYTES;
  }

  /** The server process (the leader of its group) while it runs. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Why this transport closed the connection itself (an oversize answer), if it did. */
  get closeReason(): string | undefined {
    return this.#closeReason;
  }

  start(): Promise<void> {
    if (this.#child) throw new Error(`MCP server "${this.#options.server}": the transport was started twice`);
    const { command, args, cwd } = this.#options;
    const child = spawn(command, [...args], {
      env: { ...inheritedEnv(), ...this.#options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      ...(cwd ? { cwd } : {}),
    });
    this.#child = child;
    const { pid } = child;
    if (pid !== undefined) this.#options.groups?.add(pid);
    this.#exited = new Promise((resolve) => {
      child.once('exit', () => {
        // The leader is gone: what it left in its group goes with it.
        if (pid !== undefined) killGroup(pid, 'SIGKILL');
        if (pid !== undefined) this.#options.groups?.remove(pid);
        resolve();
      });
    });
    child.once('close', () => {
      this.#child = undefined;
      this.onclose?.();
    });
    child.stdout?.on('data', (chunk: Buffer) => this.#read(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.#options.stderr(chunk.toString('utf8')));
    for (const stream of [child.stdin, child.stdout, child.stderr])
      stream?.on('error', (error) => this.onerror?.(error));
    return new Promise((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin?.writable)
      return Promise.reject(new Error(`MCP server "${this.#options.server}" is not running`));
    return new Promise((resolve) => {
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Ends its input, then SIGTERM to its group, then SIGKILL, each after a grace period. */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child?.pid || !this.#exited) return;
    const exited = this.#exited;
    child.stdin?.end();
    if (await endsWithin(exited, EXIT_GRACE_MS)) return;
    killGroup(child.pid, 'SIGTERM');
    if (await endsWithin(exited, EXIT_GRACE_MS)) return;
    killGroup(child.pid, 'SIGKILL');
    await exited;
  }

  /** Splits stdout into lines (one JSON-RPC message each); a line over the limit ends the connection. */
  #read(chunk: Buffer): void {
    if (this.#closeReason) return;
    let rest = chunk;
    for (let end = rest.indexOf(10); end !== -1; end = rest.indexOf(10)) {
      this.#chunks.push(rest.subarray(0, end));
      const line = Buffer.concat(this.#chunks).toString('utf8');
      this.#chunks = [];
      this.#pending = 0;
      rest = rest.subarray(end + 1);
      this.#deliver(line);
    }
    this.#pending += rest.length;
    if (this.#pending > this.#maxBytes) this.#oversize();
    else if (rest.length > 0) this.#chunks.push(rest);
  }

  #deliver(line: string): void {
    if (line.trim() === '') return;
    try {
      this.onmessage?.(JSONRPCMessageSchema.parse(JSON.parse(line)));
    } catch (error) {
      this.onerror?.(
        new Error(
          `MCP server "${this.#options.server}" sent a line that is not JSON-RPC: ${errorText(error)}`,
        ),
      );
    }
  }

  /** Said once; the process group is ended and the connection closes (the caller reconnects). */
  #oversize(): void {
    this.#closeReason = answerTooLarge(this.#options.server, this.#maxBytes);
    this.#chunks = [];
    this.#pending = 0;
    this.onerror?.(new Error(this.#closeReason));
    const pid = this.#child?.pid;
    if (pid === undefined) return;
    killGroup(pid, 'SIGTERM');
    void endsWithin(this.#exited ?? Promise.resolve(), EXIT_GRACE_MS).then((ended) => {
      if (!ended) killGroup(pid, 'SIGKILL');
    });
  }
}

function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED_ENV) {
    const value = process.env[key];
    if (value !== undefined && !value.startsWith('()')) env[key] = value;
  }
  return env;
}

/** True when `exited` settles within `ms`; the timer does not hold the process. */
async function endsWithin(exited: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  const ended = await Promise.race([exited.then(() => true), timeout]);
  clearTimeout(timer);
  return ended;
}
