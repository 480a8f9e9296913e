import { driveClosed, p, perSecond, userNames } from './durable-drive.js';
import { httpSend } from './durable-gateway.js';

/**
 * The load client of the HTTP bench (http-path.ts), run as its own process so that the server
 * measured has its process to itself, as behind a real client: web chat messages POSTed over
 * node:http keep-alive sockets, `concurrency` in flight, after `warmup` messages from other users.
 * Input: one JSON argument; output: one JSON line on stdout. Not a test.
 */

export interface ClientInput {
  url: string;
  token: string;
  text: string;
  users: number;
  messages: number;
  concurrency: number;
  warmup: number;
}

export interface ClientOutput {
  rate: number;
  p50: number;
  p99: number;
  failures: number;
  firstFailure: string | undefined;
}

const input = JSON.parse(process.argv[2] ?? '{}') as ClientInput;
const send = httpSend(input.url, input.token, input.text);
const warm = await driveClosed(send, {
  users: userNames('warmup', Math.min(100, input.users)),
  messages: input.warmup,
  concurrency: input.concurrency,
});
const result = await driveClosed(send, {
  users: userNames('user', input.users),
  messages: input.messages,
  concurrency: input.concurrency,
});
const output: ClientOutput = {
  rate: perSecond(result),
  p50: p(result, 50),
  p99: p(result, 99),
  failures: warm.failures + result.failures,
  firstFailure: warm.firstFailure ?? result.firstFailure,
};
process.stdout.write(`${JSON.stringify(output)}\n`);
process.exit(0);
