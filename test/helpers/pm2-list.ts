/** What the pm2 tests read of `pm2 jlist`: one app's pid, name, status and restart count. */
export interface Pm2Process {
  pid: number;
  name: string;
  pm2_env: { status: string; restart_time: number };
}

/**
 * The apps in `pm2 jlist`'s output: one JSON line, after any notice pm2 prints of its own. `App`:
 * what the caller reads of each (pm2 gives more than `Pm2Process` names).
 */
export function parsePm2List<App extends Pm2Process = Pm2Process>(stdout: string): App[] {
  const json = stdout
    .split('\n')
    .reverse()
    .find((line) => line.startsWith('[{') || line.trim() === '[]');
  return JSON.parse(json ?? '[]') as App[];
}

/** App `name` in `pm2 jlist`'s output; throws, with the output, when pm2 does not list it. */
export function findPm2App<App extends Pm2Process = Pm2Process>(stdout: string, name: string): App {
  const app = parsePm2List<App>(stdout).find((entry) => entry.name === name);
  if (!app) throw new Error(`pm2 does not list ${name}: ${stdout}`);
  return app;
}
