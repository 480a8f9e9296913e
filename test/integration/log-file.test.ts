import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listLogFiles } from '../../src/base/logging/index.js';
import { startTestGateway, TEST_TOKEN, type TestGateway } from '../helpers/gateway.js';
import { openFiles } from '../helpers/resources.js';

// The gateway host opens `log.file` at every boot: a restart with the same options keeps the open
// file, another path moves to it, no `log.file` closes it. Nothing is left open (no worker, no fd).

let gateway: TestGateway | undefined;

afterEach(async () => {
  await gateway?.dispose();
  gateway = undefined;
});

async function writeGatewayConfig(target: TestGateway, log: Record<string, unknown>): Promise<void> {
  const config = { stateDir: path.join(target.dir, 'data'), http: { port: 0, token: TEST_TOKEN }, log };
  await writeFile(target.configPath, JSON.stringify(config));
}

const readyCount = async (base: string) => {
  const texts = await Promise.all(listLogFiles(base).map((file) => readFile(file, 'utf8')));
  return texts
    .join('')
    .split('\n')
    .filter((line) => line.includes('"msg":"Switchboard ready')).length;
};

describe('log.file across in-process restarts', () => {
  it('keeps one file open for the same options, moves to a new path, closes when turned off', async () => {
    gateway = await startTestGateway({ config: { log: { file: {} } } });
    const first = path.join(gateway.dir, 'data', 'logs', 'switchboard.log');
    for (let restart = 1; restart <= 3; restart += 1) await gateway.restart();
    expect(await readyCount(first)).toBe(4);
    expect(listLogFiles(first)).toHaveLength(1);
    expect(openFiles('switchboard.1.log')).toBe(1);

    const second = path.join(gateway.dir, 'other', 'gateway.log');
    await writeGatewayConfig(gateway, { file: { path: second } });
    await gateway.restart();
    expect(openFiles('switchboard.1.log')).toBe(0);
    expect(openFiles('gateway.1.log')).toBe(1);
    expect(await readyCount(second)).toBe(1);

    await writeGatewayConfig(gateway, {});
    await gateway.restart();
    expect(openFiles('gateway.1.log')).toBe(0);
    const readyLines = gateway.logLines.filter((line) => line.includes('"msg":"Switchboard ready'));
    // The collecting destination reads as a terminal: it had every ready line, the file or not.
    expect(readyLines).toHaveLength(6);
  });
});
