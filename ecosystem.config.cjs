// pm2 process file: `npm run build && pm2 start ecosystem.config.cjs`.
// Stop with `pm2 stop switchboard` (SIGINT, a graceful stop); restart in-process with
// `pm2 sendSignal SIGUSR1 switchboard` (same pid, the config is read again).
const path = require('node:path');

// The directory the gateway runs in: the default config (config/gateway.jsonc), the default
// stateDir (./data) and the log files below resolve against it. SWITCHBOARD_WORKDIR lets a
// deployment or a test keep its state elsewhere; by default it is this repository.
const workdir = path.resolve(process.env.SWITCHBOARD_WORKDIR || __dirname);

module.exports = {
  apps: [
    {
      name: 'switchboard',
      cwd: workdir,
      // Absolute, because pm2 resolves a relative script against cwd, which may be elsewhere.
      script: path.join(__dirname, 'dist/main.js'),
      args: 'start',
      // One process: sessions, queues and the HTTP port belong to a single gateway.
      exec_mode: 'fork',
      instances: 1,
      // The gateway calls process.send('ready') once it serves; until then pm2 shows it as launching.
      wait_ready: true,
      // A first start opens the store and may generate the HTTP token; allow for a slow disk.
      listen_timeout: 20000,
      // pm2 stop sends SIGINT, then SIGKILL after kill_timeout. The gateway lets turns finish for
      // gateway.drainTimeoutMs (10 s by default) and forces its own exit 5 s after that, so pm2
      // waits longer than both: a SIGKILL would skip closing the store.
      kill_timeout: 20000,
      // Logs sit in the default state dir (./data) under the workdir, next to the store.
      out_file: 'data/logs/switchboard.out.log',
      error_file: 'data/logs/switchboard.error.log',
      // One file per stream without a pm2 instance suffix, so the path above is the real one.
      merge_logs: true,
      // A crash (not a stop) brings the gateway back.
      autorestart: true,
      env: {
        NODE_ENV: 'production',
      },
    },
  ],
};
