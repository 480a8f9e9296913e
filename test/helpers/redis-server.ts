import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from './machine.js';

export interface RedisServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts Debian's real redis-server on a free loopback port, without persistence.
 * `.ci/run` installs redis-server; a machine without it fails here with that hint.
 */
export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve();
    };
    child.stdout?.on('data', onData);
    child.once('error', (error) =>
      reject(
        new Error(`cannot start redis-server (apt-get install redis-server; .ci/run does): ${error.message}`),
      ),
    );
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
