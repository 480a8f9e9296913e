import { appendFile, chmod, mkdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger, followLog, listLogFiles, readLastLinesOf } from '../../src/base/logging/index.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';

let dir: string;
const handles: { close(): void }[] = [];

beforeEach(async () => {
  dir = await makeTempDir('switchboard-log-file-');
});

afterEach(async () => {
  for (const handle of handles.splice(0)) handle.close();
  await removeDir(dir);
});

function collectingLogger(terminal: boolean) {
  const lines: string[] = [];
  const handle = createLogger({ terminal, destination: { write: (line: string) => void lines.push(line) } });
  handles.push(handle);
  return { ...handle, lines };
}

const fileOptions = (base = path.join(dir, 'logs', 'switchboard.log')) => ({
  path: base,
  size: '10m',
  keep: 3,
});

describe('the log file (log.file)', () => {
  it('takes the lines instead of a destination nobody reads (pm2: no double logging), scrubbed, mode 0600', async () => {
    const log = collectingLogger(false);
    log.setSecrets(['sk-file-secret']);
    await log.useFile(fileOptions());
    log.logger.info({ apiKey: 'sk-file-secret' }, 'hello file');
    const [current] = listLogFiles(fileOptions().path);
    expect(current).toBe(path.join(dir, 'logs', 'switchboard.1.log'));
    const text = await readFile(current as string, 'utf8');
    expect(text).toContain('hello file');
    expect(text).not.toContain('sk-file-secret');
    expect((await stat(current as string)).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(dir, 'logs'))).mode & 0o777).toBe(0o700);
    expect(log.lines).toEqual([]);
  });

  it('still writes to a terminal, which alone may show the new token; the file never does', async () => {
    const log = collectingLogger(true);
    log.setSecrets(['sk-file-secret', 'new-token-123456'], { terminalMayShow: ['new-token-123456'] });
    await log.useFile(fileOptions());
    log.logger.info('ready: /?token=new-token-123456 key sk-file-secret');
    const text = await readFile(listLogFiles(fileOptions().path)[0] as string, 'utf8');
    expect(text).toContain('ready: /?token=[REDACTED]');
    expect(log.lines.join('')).toContain('/?token=new-token-123456');
    expect(log.lines.join('')).not.toContain('sk-file-secret');
  });

  it('keeps the open file for the same options and goes back to the destination when closed', async () => {
    const log = collectingLogger(false);
    await log.useFile(fileOptions());
    log.logger.info('one');
    await log.useFile(fileOptions());
    log.logger.info('two');
    expect(listLogFiles(fileOptions().path)).toHaveLength(1);
    log.close();
    log.logger.info('three');
    expect(log.lines.map((line) => JSON.parse(line).msg)).toEqual(['three']);
    const text = await readFile(listLogFiles(fileOptions().path)[0] as string, 'utf8');
    expect(text.trim().split('\n')).toHaveLength(2);
  });

  it('refuses a path it cannot write, naming log.file.path, and keeps the file it had', async () => {
    const log = collectingLogger(false);
    await log.useFile(fileOptions());
    await writeFile(path.join(dir, 'a-file'), '');
    await expect(log.useFile(fileOptions(path.join(dir, 'a-file', 'switchboard.log')))).rejects.toThrow(
      /^log\.file\.path: cannot write the log file .*a-file\/switchboard\.log: EEXIST: file already exists, mkdir/,
    );
    log.logger.info('still here');
    expect(await readFile(listLogFiles(fileOptions().path)[0] as string, 'utf8')).toContain('still here');
  });
});

describe('the log file and a planted symbolic link', () => {
  async function plantedTarget() {
    const target = path.join(dir, 'elsewhere', 'target');
    await mkdir(path.dirname(target));
    await writeFile(target, 'not a log\n');
    await chmod(target, 0o644);
    return target;
  }

  it('refuses a link at the current file, naming log.file.path, and neither writes nor chmods its target', async () => {
    const target = await plantedTarget();
    await mkdir(path.join(dir, 'logs'), { mode: 0o700 });
    await symlink(target, path.join(dir, 'logs', 'switchboard.1.log'));
    const log = collectingLogger(false);
    await expect(log.useFile(fileOptions())).rejects.toThrow(
      /^log\.file\.path: cannot write the log file .*switchboard\.log: .*switchboard\.1\.log is a symbolic link/,
    );
    log.logger.info('where does this go');
    expect(await readFile(target, 'utf8')).toBe('not a log\n');
    expect((await stat(target)).mode & 0o777).toBe(0o644);
    expect(log.lines.join('')).toContain('where does this go');
  });

  it('refuses to rotate onto a link planted at the next file: reported, the current file goes on', async () => {
    const target = await plantedTarget();
    const reports: string[] = [];
    // Observes (and keeps off the test's output) the one line the log file's failure writes to stderr.
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      reports.push(String(chunk));
      return true;
    });
    const log = collectingLogger(false);
    await log.useFile({ ...fileOptions(), size: '1k' });
    await symlink(target, path.join(dir, 'logs', 'switchboard.2.log'));
    const filler = 'x'.repeat(200);
    for (let line = 0; line < 8; line += 1) log.logger.info({ filler }, `line ${line}`);
    await expect.poll(() => reports.join('')).toMatch(/cannot rotate to .*switchboard\.2\.log: ELOOP/);
    log.logger.info('after the refused rotation');
    expect(await readFile(path.join(dir, 'logs', 'switchboard.1.log'), 'utf8')).toContain(
      'after the refused rotation',
    );
    expect(await readFile(target, 'utf8')).toBe('not a log\n');
    expect((await stat(target)).mode & 0o777).toBe(0o644);
  });
});

describe('readLastLinesOf (switchboard logs -n)', () => {
  it('reads the last lines of the current file and older files when it has too few', async () => {
    const base = path.join(dir, 'app.log');
    await writeFile(path.join(dir, 'app.1.log'), 'a\nb\nc\n');
    await writeFile(path.join(dir, 'app.2.log'), 'd\ne\n');
    // A line being written (no newline yet) is left for --follow.
    await writeFile(path.join(dir, 'app.10.log'), 'f\ng\npartial');
    await writeFile(path.join(dir, 'app.out.log'), 'not one of them\n');
    const files = listLogFiles(base);
    expect(files.map((file) => path.basename(file))).toEqual(['app.1.log', 'app.2.log', 'app.10.log']);
    expect((await readLastLinesOf(files, 3)).lines).toEqual(['e', 'f', 'g']);
    expect(await readLastLinesOf(files, 1)).toEqual({ lines: ['g'], end: 4 });
    expect((await readLastLinesOf(files, 50)).lines).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    expect(await readLastLinesOf(files, 0)).toEqual({ lines: [], end: 4 });
  });

  it('reads backwards across chunk boundaries without splitting a character', async () => {
    const file = path.join(dir, 'big.1.log');
    const line = `${'é'.repeat(5000)}\n`;
    await writeFile(file, line.repeat(40));
    const { lines } = await readLastLinesOf([file], 30);
    expect(lines).toHaveLength(30);
    expect(lines.every((text) => text === line.trim())).toBe(true);
  });
});

describe('followLog (switchboard logs -f)', () => {
  it('prints appended lines, then after rotations the rest of the old file and each newer one, once', async () => {
    const base = path.join(dir, 'app.log');
    const file = (number: number) => path.join(dir, `app.${number}.log`);
    await writeFile(file(1), 'old\n');
    const lines: string[] = [];
    const stop = new AbortController();
    const following = followLog({
      files: () => listLogFiles(base),
      from: { file: file(1), offset: 4 },
      onLine: (line) => lines.push(line),
      signal: stop.signal,
    });
    try {
      await appendFile(file(1), 'a\nb');
      await expect.poll(() => lines).toEqual(['a']);
      // Two rotations between looks; the partial line ends in the old file first.
      await appendFile(file(1), '\n');
      await writeFile(file(2), 'c\n');
      await writeFile(file(3), 'dddd\n');
      await expect.poll(() => lines).toEqual(['a', 'b', 'c', 'dddd']);
      await rm(file(1)); // keep deleting the oldest: nothing to read again
      // A file that shrank (pm2 flush) is read again from its start.
      await writeFile(file(3), 'e\n');
      await expect.poll(() => lines).toEqual(['a', 'b', 'c', 'dddd', 'e']);
    } finally {
      stop.abort();
      await following;
    }
  });
});
