// pm2 process file: `npm install && npx pm2 start ecosystem.config.cjs` (npm install builds dist/
// in its prepare step). Stop with `pm2 stop switchboard` (SIGINT, a graceful stop); restart
// in-process with `pm2 sendSignal SIGUSR1 switchboard` (same pid, the config is read again).
// A config that cannot start is retried a few times (the gateway waits longer each time before it
// exits), then pm2 gives up and lists it `errored`; the reason is in `pm2 logs switchboard --err`
// (or `npx switchboard logs --err`).
const fs = require('node:fs');
const path = require('node:path');

// The directory the gateway runs in: the default config (config/gateway.jsonc), the default
// stateDir (./data) and the log files below resolve against it. SWITCHBOARD_WORKDIR lets a
// deployment or a test keep its state elsewhere; by default it is this repository.
const workdir = path.resolve(process.env.SWITCHBOARD_WORKDIR || __dirname);
const script = path.join(__dirname, 'dist/main.js');
const logDir = path.join(workdir, 'data/logs');
const outFile = path.join(logDir, 'switchboard.out.log');
const errorFile = path.join(logDir, 'switchboard.error.log');

if (!fs.existsSync(script)) {
  throw new Error(
    `${script} is missing: run \`npm install\` (it builds) or \`npm run build\` in ${__dirname}`,
  );
}

// pm2's daemon, not the gateway, opens the log files, with the daemon's umask (often 022, so
// 0644 in a 0755 data/). This file is read by the pm2 command before the daemon starts the app:
// make data/ and data/logs 0700 and the log files 0600 here, and give a daemon this command
// starts the private umask. The gateway tightens data/ again at every start.
process.umask(0o077);
fs.mkdirSync(logDir, { recursive: true, mode: 0o700 });
for (const directory of [path.join(workdir, 'data'), logDir]) fs.chmodSync(directory, 0o700);
for (const file of [outFile, errorFile]) fs.closeSync(fs.openSync(file, 'a', 0o600));
for (const file of [outFile, errorFile]) fs.chmodSync(file, 0o600);

module.exports = {
  apps: [
    {
      name: 'switchboard',
      cwd: workdir,
      // Absolute, because pm2 resolves a relative script against cwd, which may be elsewhere.
      script,
      args: 'start',
      // One process: sessions, queues and the HTTP port belong to a single gateway.
      exec_mode: 'fork',
      instances: 1,
      // The gateway calls process.send('ready') once it serves; until then pm2 shows it as launching.
      wait_ready: true,
      // A first start opens the store and may generate the HTTP token; allow for a slow disk. pm2
      // marks the app online when this runs out even without 'ready', and its timer outlives the
      // process: a failed start exits well within it (src/cli/failed-start-pause.ts, 15 s at most).
      listen_timeout: 20000,
      // pm2 stop sends SIGINT, then SIGKILL after kill_timeout. The gateway lets turns finish for
      // gateway.drainTimeoutMs (10 s by default) and forces its own exit 5 s after that, so pm2
      // waits longer than both: a SIGKILL would skip closing the store.
      kill_timeout: 20000,
      // Logs sit in the default state dir (./data) under the workdir, next to the store. The
      // gateway never writes the HTTP token to them (the ready line names the token file).
      // pm2 does not rotate them. With `log.file` in the config the gateway writes its own
      // rotated files (data/logs/switchboard.<n>.log) and no longer logs to stdout (not a
      // terminal here): the out file then keeps only what is written outside the logger, the
      // error file start failures and crashes. `npx switchboard logs` reads the gateway's file, or
      // these two (`--err`) where this file puts them (src/cli/logs.ts expects data/logs/).
      out_file: outFile,
      error_file: errorFile,
      // One file per stream without a pm2 instance suffix, so the path above is the real one.
      merge_logs: true,
      // A crash (not a stop) brings the gateway back at once. No `exp_backoff_restart_delay`: with
      // it pm2 6 lists a start that gave up as `waiting restart`, and then its stale listen_timeout
      // timer as `online` with pid 0. The gateway paces a failed start itself instead: it waits
      // 1 s, 2 s, 4 s, then 5 s (pm2's count of unstable restarts in a row) before it exits.
      autorestart: true,
      // A process that ends within min_uptime of its start is an unstable restart; after
      // max_restarts of those pm2 stops trying (a config that cannot start, a store that cannot be
      // reached) instead of restarting forever. pm2 counts them only within min_uptime ×
      // max_restarts of the first start, so min_uptime is generous: a loaded machine takes several
      // seconds to fail a start. pm2 then lists the app `errored` with pid 0; `pm2 logs` says why.
      min_uptime: 30000,
      max_restarts: 5,
      env: {
        NODE_ENV: 'production',
        // Secrets for `${NAME}` references: the gateway reads this file itself at every start and
        // in-process restart (never pm2: they stay out of pm2's dump and `pm2 env`), so an edited
        // file needs `pm2 restart switchboard` or `pm2 sendSignal SIGUSR1 switchboard`, and no
        // `--update-env`. `npx switchboard setup` writes it (mode 0600).
        SWITCHBOARD_ENV_FILE: process.env.SWITCHBOARD_ENV_FILE || path.join(workdir, 'data', '.env'),
      },
    },
  ],
};
