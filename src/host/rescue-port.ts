import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import {
  diffConfigTexts,
  findSecretPaths,
  hashConfigText,
  type LoadedConfig,
  lastReadyFile,
  readConfigFile,
} from '../base/config/index.js';
import { errorText, fail, ok, type Result } from '../base/errors/index.js';
import type { RescueAuditStep, RescuePort, RescueStatus } from '../engine/routing/index.js';
import type { SafeModeState } from './safe-mode.js';
import { describeStart, type StartEntry } from './start-record.js';

/** `<stateDir>/rescue-audit.jsonl`: one line per `/rescue yes`, with the config hash before and after. */
export const RESCUE_AUDIT_FILE = 'rescue-audit.jsonl';

/** What the host lends `/rescue`: its config, safe mode, the start record, and leaving safe mode. */
export interface RescueHost {
  loaded(): LoadedConfig | undefined;
  safeMode(): SafeModeState | undefined;
  /** The start record's entries (this start last). */
  starts(): readonly StartEntry[];
  /** Clears the breaker's count and safe mode (the next boot is normal). */
  leaveSafeMode(): Promise<void>;
}

/** The `RescuePort` of `src/engine/routing` over the host: reads files, never a model or a toolpack. */
export function createRescuePort(host: RescueHost): RescuePort {
  const files = () => {
    const loaded = host.loaded();
    if (!loaded?.path) return undefined;
    const stateDir = path.resolve(loaded.config.stateDir);
    return { file: loaded.path, stateDir, kept: lastReadyFile(loaded.path, stateDir) };
  };
  const lastGood = async (): Promise<Result<{ text: string; hash: string }>> => {
    const where = files();
    if (!where) return fail('the gateway runs on built-in defaults: there is no config file to rescue');
    try {
      const text = await readConfigFile(where.kept);
      if (text === undefined) return fail(`no config has reached ready yet (${where.kept} does not exist)`);
      return ok({ text, hash: hashConfigText(text) });
    } catch (error) {
      return fail(`cannot read ${where.kept}: ${errorText(error)}`);
    }
  };
  const current = async (): Promise<string> => {
    const where = files();
    return where ? ((await readConfigFile(where.file)) ?? '') : '';
  };
  return {
    async status(): Promise<RescueStatus> {
      const safe = host.safeMode();
      const good = await lastGood();
      const starts = host.starts();
      const uncleanStarts = starts
        .slice(0, -1)
        .filter((entry) => entry.clean !== true)
        .slice(-5)
        .map(describeStart);
      return {
        ...(safe ? { safeMode: { reason: safe.reason, since: safe.since } } : {}),
        uncleanStarts,
        fileHash: hashConfigText(await current()),
        lastGoodHash: good.ok ? good.value.hash : undefined,
      };
    },
    lastGood,
    async diffLastGood() {
      const good = await lastGood();
      if (!good.ok) return good;
      const where = files();
      const name = where ? path.basename(where.file) : 'config';
      return ok(diffConfigTexts(good.value.text, await current(), { name, secretPaths: findSecretPaths() }));
    },
    async leaveSafeMode() {
      if (!host.safeMode()) return fail('the gateway is not in safe mode');
      await host.leaveSafeMode();
      return ok('Safe mode left: the unclean starts no longer count.');
    },
    async audit(step: RescueAuditStep) {
      const where = files();
      if (!where) return;
      const line = JSON.stringify({ at: new Date().toISOString(), ...step });
      await appendFile(path.join(where.stateDir, RESCUE_AUDIT_FILE), `${line}\n`, { mode: 0o600 });
    },
  };
}
