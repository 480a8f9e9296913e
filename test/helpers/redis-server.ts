import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from './machine.js';

export interface RedisServer {
  /** `redis://127.0.0.1:<port>`, without credentials. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

export interface RedisServerOptions {
  /** The default user's password (`requirepass`): connections must AUTH before any command. */
  requirepass?: string;
  /** ACL users with every permission, for `redis://<name>:<password>@…`. */
  users?: { name: string; password: string }[];
  /** Listen on this port (a server started again where a stopped one was); default a free one. */
  port?: number;
}

/**
 * Starts Debian's real redis-server on a free loopback port, without persistence.
 * `.ci/run` installs redis-server; a machine without it fails here with that hint.
 */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const port = options.port ?? (await freePort());
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  if (options.requirepass !== undefined) args.push('--requirepass', options.requirepass);
  for (const user of options.users ?? [])
    args.push('--user', user.name, 'on', `>${user.password}`, '~*', '&*', '+@all');
  const child: ChildProcess = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
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
    port,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
