import type { Running } from './gateway-types.js';

/** Order matters: refuse new messages, let turns end, then close transports and storage. */
export async function stopServices(running: Running, drainTimeoutMs: number): Promise<void> {
  running.stopping.abort();
  running.channels?.endRetries();
  // Wake turns the stop interrupts from here on keep their signals for the next start.
  running.signals?.stop();
  await running.scheduler?.stop();
  // Sub-agent runs that end during the drain record their end before the store closes.
  const subagentsClosed = running.subagents?.close();
  await running.restartNote;
  await running.router?.close(drainTimeoutMs);
  running.approvals?.close();
  await subagentsClosed;
  // Wake turns the drain ended clear their signals (or keep them for the next start) before the store closes.
  await running.signals?.settled();
  await running.toolpacks?.stop();
  // Turns have ended: no call is waiting on a server. Stdio servers exit with their pipes closed.
  await running.mcp?.stop();
  await running.channels?.stop();
  await running.http?.close();
  // Messages that arrived during the drain are being stored: the store waits for them.
  await running.router?.seal();
  await running.store?.close();
  running.unbindMetrics?.();
  running.router = undefined;
  running.http = undefined;
  running.store = undefined;
  running.mcp = undefined;
}
