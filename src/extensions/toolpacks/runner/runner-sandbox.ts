import { fail, ok, type Result } from '../../../base/errors/index.js';
import {
  probeSandbox,
  type RunnerSandboxSetting,
  type SandboxAccess,
  type SandboxLaunch,
  type SandboxProbe,
  sandboxPrefix,
} from './sandbox.js';

export interface RunnerSandbox {
  /** How the next runner starts, or why it may not start (`required` on a machine without a sandbox). */
  launch(access: SandboxAccess): Promise<Result<SandboxLaunch>>;
}

export const NO_SANDBOX_WARNING =
  "toolpack runners start without a sandbox: they can open network connections (the gateway, the model, the store), connect to any Unix socket of the host (pm2's, which runs commands as the gateway's user) and signal the gateway";

/**
 * The sandbox of one gateway's runners: the machine is probed once, on the first runner start. With
 * `auto` on a machine that cannot, the fallback is logged once as a warning naming the fix.
 */
export function createRunnerSandbox(options: {
  setting: RunnerSandboxSetting;
  logger: { warn(object: object, message: string): void };
  probe?: () => Promise<SandboxProbe>;
}): RunnerSandbox {
  let probed: Promise<SandboxProbe> | undefined;
  let warned = false;
  const unconfined: SandboxLaunch = { kind: 'none', execPath: process.execPath, prefix: [] };
  return {
    async launch(access) {
      if (options.setting === 'off') return ok(unconfined);
      probed ??= (options.probe ?? probeSandbox)();
      const probe = await probed;
      if (probe.ok) {
        const { kind, executable, runtime } = probe.value;
        return ok({
          kind,
          execPath: executable,
          prefix: [...sandboxPrefix(access, runtime), process.execPath],
        });
      }
      if (options.setting === 'required') {
        return fail(`no runner sandbox on this machine (${probe.error}); tools.runnerSandbox is "required"`);
      }
      if (!warned) {
        warned = true;
        options.logger.warn(
          { reason: probe.error },
          `${NO_SANDBOX_WARNING}; install bubblewrap (apt-get install bubblewrap), or set tools.runnerSandbox to "off" to accept this or "required" to refuse it`,
        );
      }
      return ok(unconfined);
    },
  };
}

/** `doctor`'s word on the runner sandbox; `ok: false` only when runners could not start at all. */
export async function describeRunnerSandbox(
  setting: RunnerSandboxSetting,
  probe: () => Promise<SandboxProbe> = probeSandbox,
): Promise<{ ok: boolean; warning: boolean; text: string }> {
  if (setting === 'off') {
    return {
      ok: true,
      warning: true,
      text: `runner sandbox: off (tools.runnerSandbox); ${NO_SANDBOX_WARNING}`,
    };
  }
  const result = await probe();
  if (result.ok) {
    return {
      ok: true,
      warning: false,
      text: `runner sandbox: ${result.value.kind} (no network, no host files or sockets, cannot signal the gateway)`,
    };
  }
  if (setting === 'required') {
    return {
      ok: false,
      warning: false,
      text: `runner sandbox: none (${result.error}); tools.runnerSandbox is "required", so toolpack runners will not start; install bubblewrap (apt-get install bubblewrap)`,
    };
  }
  return {
    ok: true,
    warning: true,
    text: `runner sandbox: none (${result.error}); ${NO_SANDBOX_WARNING}; install bubblewrap (apt-get install bubblewrap), or set tools.runnerSandbox to "off" to accept this`,
  };
}
