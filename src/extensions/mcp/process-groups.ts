import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../base/logging/index.js';

/**
 * The process groups of the stdio MCP servers this process started, recorded under the state dir
 * (`mcp-groups/<pid>.json`: the owner, the leader's pid, start time and command line), so that the
 * next start reaps the ones a gateway killed by SIGKILL left running (a server that ignores the end
 * of its input outlives it). Linux only (it reads `/proc`); elsewhere nothing is recorded or reaped.
 */
export interface ProcessGroups {
  add(pid: number): void;
  remove(pid: number): void;
}

/** Who a process is, beyond its pid (which the system reuses): when it started and its command line. */
export interface ProcessIdentity {
  pid: number;
  /** Field 22 of `/proc/<pid>/stat`: clock ticks after boot. */
  start: string;
  cmdline: string;
}

interface GroupRecord {
  owner: ProcessIdentity;
  leader: ProcessIdentity;
}

/** A process leftover group that was ended at start, for the log. */
export interface ReapedGroup {
  pid: number;
  cmdline: string;
}

export interface ProcessGroupRecord extends ProcessGroups {
  /** Kills the groups recorded by processes that are gone (only if their leader is still what was started). */
  reapLeftovers(): ReapedGroup[];
}

export function createProcessGroupRecord(options: { dir: string; logger: Logger }): ProcessGroupRecord {
  const { dir, logger } = options;
  const owner = processIdentity(process.pid);
  const file = (pid: number) => path.join(dir, `${pid}.json`);
  return {
    add(pid) {
      const leader = processIdentity(pid);
      if (!owner || !leader) return;
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        writeFileSync(file(pid), JSON.stringify({ owner, leader } satisfies GroupRecord), { mode: 0o600 });
      } catch (error) {
        logger.warn({ err: error, file: file(pid) }, 'could not record an MCP server process group');
      }
    },
    remove(pid) {
      rmSync(file(pid), { force: true });
    },
    reapLeftovers() {
      if (!owner) return [];
      const reaped: ReapedGroup[] = [];
      for (const name of listRecords(dir)) {
        const record = readRecord(path.join(dir, name));
        if (record && sameProcess(record.owner)) continue;
        if (record && sameProcess(record.leader)) {
          killGroup(record.leader.pid, 'SIGKILL');
          reaped.push({ pid: record.leader.pid, cmdline: record.leader.cmdline });
        }
        rmSync(path.join(dir, name), { force: true });
      }
      return reaped;
    },
  };
}

/** `pid`'s start time and command line from `/proc`; undefined when it is gone or there is no `/proc`. */
export function processIdentity(pid: number): ProcessIdentity | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: fields 3… follow the last `)`.
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    return start ? { pid, start, cmdline } : undefined;
  } catch {
    return undefined;
  }
}

/** The same process as recorded: its pid now has the recorded start time and command line. */
function sameProcess(recorded: ProcessIdentity): boolean {
  const now = processIdentity(recorded.pid);
  return now !== undefined && now.start === recorded.start && now.cmdline === recorded.cmdline;
}

/** Signals every process of the group whose leader is `pid`; a group that is gone already is fine. */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

function listRecords(dir: string): string[] {
  try {
    return readdirSync(dir).filter((name) => /^\d+\.json$/.test(name));
  } catch {
    return [];
  }
}

function readRecord(file: string): GroupRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(file, 'utf8')) as GroupRecord;
    return typeof record.owner?.pid === 'number' && typeof record.leader?.pid === 'number'
      ? record
      : undefined;
  } catch {
    return undefined;
  }
}
