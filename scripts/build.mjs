// `npm run build`: builds dist/ (the gateway) and web/dist/ (the control UI) in four steps, showing
// each, then writes dist/.build-stamp.json: a hash of every file the build reads.
// `node scripts/build.mjs --if-stale` (what `npm start` and `npm run doctor` run) builds only when
// that stamp does not match the sources any more (or an output is missing) and otherwise says that
// dist/ is up to date in a line: hashing the ~650 inputs takes tens of milliseconds, a build 30–90 s.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STAMP = 'dist/.build-stamp.json';
/** What the build reads: these folders (less their build output) and files, paths relative to the root. */
const INPUT_DIRS = ['src', 'web'];
const SKIPPED_DIRS = new Set(['web/dist', 'node_modules']);
const INPUT_FILES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/build.mjs',
  'scripts/write-config-validator.mjs',
];
/** What the build writes: missing any of them means building again. */
const OUTPUTS = ['dist/main.js', 'dist/base/config/config-validator.cjs', 'web/dist/index.html'];
const RUNNER = 'extensions/toolpacks/runner/runner-process.mjs';

const bin = (name) => path.join(ROOT, 'node_modules', '.bin', name);
const STEPS = [
  { title: 'compiling TypeScript into dist/ (tsc)', command: [bin('tsc'), '-p', 'tsconfig.build.json'] },
  {
    title: 'copying the toolpack runner',
    run: () => copyFile(`${ROOT}/src/${RUNNER}`, `${ROOT}/dist/${RUNNER}`),
  },
  {
    title: "generating the config validator (ajv's standalone code)",
    command: [process.execPath, 'scripts/write-config-validator.mjs'],
  },
  {
    title: 'bundling the control UI into web/dist/ (vite)',
    command: [bin('vite'), 'build', '--config', 'web/vite.config.ts'],
  },
];

async function listInputs() {
  const files = INPUT_FILES.filter((file) => existsSync(path.join(ROOT, file)));
  async function walk(dir) {
    for (const entry of await readdir(path.join(ROOT, dir), { withFileTypes: true })) {
      const relative = `${dir}/${entry.name}`;
      if (entry.isDirectory() && !SKIPPED_DIRS.has(relative)) await walk(relative);
      else if (entry.isFile()) files.push(relative);
    }
  }
  for (const dir of INPUT_DIRS) await walk(dir);
  return files.sort();
}

/** Every input's content hash, by path: the stamp. Content, not mtimes, so a checkout that only touches files does not rebuild. */
async function hashInputs() {
  const hashes = {};
  for (const file of await listInputs()) {
    hashes[file] = createHash('sha256')
      .update(await readFile(path.join(ROOT, file)))
      .digest('base64url')
      .slice(0, 22);
  }
  return hashes;
}

/** Why dist/ must be built, in words, or undefined when it is up to date with `inputs`. */
async function staleReason(inputs) {
  const missing = OUTPUTS.find((file) => !existsSync(path.join(ROOT, file)));
  if (missing) return `${missing} is missing`;
  const stamp = await readFile(path.join(ROOT, STAMP), 'utf8')
    .then((text) => JSON.parse(text).inputs)
    .catch(() => undefined);
  if (!stamp) return `${STAMP} is missing (built by an older build or interrupted)`;
  const changed = [...new Set([...Object.keys(inputs), ...Object.keys(stamp)])]
    .filter((file) => inputs[file] !== stamp[file])
    .sort();
  if (changed.length === 0) return undefined;
  const named = changed.slice(0, 3).join(', ');
  return `changed since the last build: ${named}${changed.length > 3 ? ` and ${changed.length - 3} more` : ''}`;
}

function runCommand([command, ...args]) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: 'inherit' });
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${path.basename(command)} ${args.join(' ')} exited ${code}`)),
    );
  });
}

async function build(inputs) {
  // A build that stops half-way must not leave a stamp saying dist/ is up to date.
  await rm(path.join(ROOT, STAMP), { force: true });
  const began = performance.now();
  for (const [index, step] of STEPS.entries()) {
    const stepBegan = performance.now();
    process.stdout.write(`build ${index + 1}/${STEPS.length}: ${step.title}…`);
    if (step.command) process.stdout.write('\n');
    await (step.command ? runCommand(step.command) : step.run());
    const seconds = ((performance.now() - stepBegan) / 1000).toFixed(1);
    process.stdout.write(
      step.command ? `build ${index + 1}/${STEPS.length}: done in ${seconds} s\n` : ' done\n',
    );
  }
  // The hashes taken before building: a source edited during the build makes the next start build again.
  await writeFile(
    path.join(ROOT, STAMP),
    `${JSON.stringify({ builtAt: new Date().toISOString(), inputs })}\n`,
  );
  console.log(`Built dist/ and web/dist/ in ${((performance.now() - began) / 1000).toFixed(1)} s.`);
}

async function main() {
  const ifStale = process.argv.includes('--if-stale');
  const inputs = await hashInputs();
  if (ifStale) {
    const reason = await staleReason(inputs);
    if (!reason) {
      console.log(
        `dist/ is up to date with the sources (${Object.keys(inputs).length} files); not building.`,
      );
      return;
    }
    console.log(
      `Building dist/ first: ${reason} (30–90 s; later starts skip this while the sources stay the same).`,
    );
  }
  await build(inputs);
}

try {
  await main();
} catch (error) {
  console.error(`\nThe build failed: ${error instanceof Error ? error.message : String(error)}`);
  console.error('Fix what the lines above name, then run `npm run build` (or `npm start`) again.');
  process.exitCode = 1;
}
