import { Agent, request } from 'node:http';

/**
 * The prober of the concurrency bench (concurrency.ts), run as its own process so that its clock
 * and event loop are not the gateway's nor the load's: for `durationMs` it sends one probe after
 * another, round-robin, `intervalMs` apart, and times each from request to the last byte of its
 * answer. Probes: `GET /healthz`, `GET /api/status`, `GET /api/sessions?limit=100`, the control
 * UI's script (its hashed name read from the page first) and a `/whoami` chat command over the web
 * chat's HTTP path. Input: one JSON argument; output: one JSON line on stdout, the latencies in ms
 * per probe and the failures. Not a test: nothing here asserts on speed.
 */

export interface ProberInput {
  url: string;
  token: string;
  durationMs: number;
  intervalMs: number;
}

export interface ProberOutput {
  latencies: Record<string, number[]>;
  failures: number;
  firstFailure: string | undefined;
}

interface Probe {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

function send(input: ProberInput, probe: Probe): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now();
  const headers: Record<string, string> = { authorization: `Bearer ${input.token}` };
  if (probe.body !== undefined) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const call = request(
      new URL(probe.path, input.url),
      { method: probe.method, agent, headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            ms: performance.now() - started,
          }),
        );
      },
    );
    call.on('error', reject);
    call.end(probe.body);
  });
}

async function probes(input: ProberInput): Promise<Probe[]> {
  const page = await send(input, { name: 'page', method: 'GET', path: '/' });
  const script = /\/assets\/[\w.-]+\.js/.exec(page.text)?.[0];
  if (script === undefined)
    throw new Error(`prober: no /assets/*.js in the control UI page (HTTP ${page.status})`);
  return [
    { name: 'GET /healthz', method: 'GET', path: '/healthz' },
    { name: 'GET /api/status', method: 'GET', path: '/api/status' },
    { name: 'GET /api/sessions', method: 'GET', path: '/api/sessions?limit=100' },
    { name: 'control UI script', method: 'GET', path: script },
    {
      name: '/whoami (web chat)',
      method: 'POST',
      path: '/api/webchat/messages',
      body: JSON.stringify({ text: '/whoami', user: 'prober' }),
    },
  ];
}

async function run(input: ProberInput): Promise<ProberOutput> {
  const list = await probes(input);
  const latencies: Record<string, number[]> = Object.fromEntries(list.map((probe) => [probe.name, []]));
  let failures = 0;
  let firstFailure: string | undefined;
  const deadline = performance.now() + input.durationMs;
  for (let turn = 0; performance.now() < deadline; turn += 1) {
    const probe = list[turn % list.length] as Probe;
    const next = performance.now() + input.intervalMs;
    try {
      const answer = await send(input, probe);
      latencies[probe.name]?.push(answer.ms);
      if (answer.status !== 200) {
        failures += 1;
        firstFailure ??= `${probe.name}: HTTP ${answer.status} ${answer.text.slice(0, 200)}`;
      }
    } catch (error) {
      failures += 1;
      firstFailure ??= `${probe.name}: ${error instanceof Error ? error.message : String(error)}`;
    }
    const wait = next - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  return { latencies, failures, firstFailure };
}

const input = JSON.parse(process.argv[2] ?? '{}') as ProberInput;
process.stdout.write(`${JSON.stringify(await run(input))}\n`);
agent.destroy();
