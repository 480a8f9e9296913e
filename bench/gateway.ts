import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createGatewayHost } from '../src/gateway/index.js';
import { createLogger } from '../src/logging/index.js';

export type StoreKind = 'sqlite' | 'memory';

export interface BenchGateway {
  /** Base URL, e.g. http://127.0.0.1:41234. */
  url: string;
  token: string;
  /** Stops the gateway and deletes its temp directory. */
  stop(): Promise<void>;
}

const BENCH_TOKEN = 'bench-token-0123456789abcdef';

/** Starts a gateway in this process on a free port of 127.0.0.1, with its state in a fresh temp dir. */
export async function startBenchGateway(store: StoreKind): Promise<BenchGateway> {
  const dir = await mkdtemp(path.join(tmpdir(), 'switchboard-bench-'));
  const stateDir = path.join(dir, 'data');
  const config = {
    stateDir,
    log: { level: 'warn' },
    http: { host: '127.0.0.1', port: 0, token: BENCH_TOKEN },
    store: {
      url: store === 'memory' ? 'memory://' : `sqlite://${path.join(stateDir, 'switchboard.sqlite')}`,
    },
  };
  const configPath = path.join(dir, 'gateway.jsonc');
  await writeFile(configPath, `// bench config\n${JSON.stringify(config, null, 2)}\n`);
  const log = createLogger({
    level: 'warn',
    destination: { write: (line: string) => process.stderr.write(line) },
  });
  let url = '';
  const host = createGatewayHost({
    log,
    configOptions: { configPath, environment: {} },
    onReady: (info) => {
      url = info.url;
    },
  });
  try {
    await host.start();
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    token: BENCH_TOKEN,
    async stop() {
      try {
        await host.stop();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
