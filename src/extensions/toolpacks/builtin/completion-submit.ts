import { stat } from 'node:fs/promises';
import nodePath from 'node:path';
import { Type } from '@sinclair/typebox';
import writeFileAtomic from 'write-file-atomic';
import type { Tool } from '../../../engine/tools/index.js';
import type { CompletionRecords } from './completion-records.js';
import { type BuiltinToolpackOptions, ensureWorkspace, fileFailure, resolveAgentPath } from './paths.js';

/** Where the report is written when the call names no file (Suzumio's name), in the agent's workspace. */
export const FINAL_REPORT_FILE = 'final-report.md';

/** The longest report one call submits (characters); a longer one belongs in a file named by `path`. */
export const MAX_REPORT_CHARS = 100_000;

const CompletionSubmitParameters = Type.Object(
  {
    report: Type.String({
      minLength: 1,
      maxLength: MAX_REPORT_CHARS,
      description: 'The final report, in Markdown: what was done, where the results are, what is left.',
    }),
    path: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'A file that holds the full report or its main artifact: /workspace/… (relative paths are in /workspace), /artifacts/<agentId>/… or /mnt/<name>/…; it must exist. Without it, the report is written to /workspace/final-report.md.',
      }),
    ),
  },
  { additionalProperties: false },
);

export interface CompletionSubmitOptions extends BuiltinToolpackOptions {
  records: CompletionRecords;
}

/**
 * `completion.submit`: hands in the final report for the people to approve. It is stored
 * (`completion-records.ts`, read by the WebUI entry `completion.report`), posted to the chat the
 * turn answers (a wake turn's chat is internal: nothing is posted), and ends the run, as Suzumio's
 * ends the activation. Without a `path`, the report is written to `final-report.md` in the agent's
 * workspace (as Suzumio writes one) and that is its path. A `path` that is not a readable file is
 * refused, naming it, and the run goes on so that the model can fix the call.
 */
export function createCompletionSubmitTool(
  options: CompletionSubmitOptions,
): Tool<typeof CompletionSubmitParameters> {
  return {
    name: 'completion.submit',
    risk: ['write'],
    description:
      'Submit the final report of the work for approval, once you are no longer waiting for answers you asked for. It ends your turn. Only the coordinator should call it, and only for the final report.',
    parameters: CompletionSubmitParameters,
    boundary: true,
    async execute(input, context) {
      let path: string | undefined;
      if (input.path !== undefined) {
        const resolved = await resolveAgentPath(options, context.agentId, input.path, 'read', context);
        if (!resolved.ok) return { ok: false, reason: `path: ${resolved.error}` };
        const found = await stat(resolved.value.host).catch(() => undefined);
        if (!found?.isFile()) return { ok: false, reason: `path: ${resolved.value.virtual} is not a file` };
        path = resolved.value.virtual;
      } else {
        const workspace = await ensureWorkspace(options, context.agentId);
        path = `/workspace/${FINAL_REPORT_FILE}`;
        try {
          await writeFileAtomic(nodePath.join(workspace, FINAL_REPORT_FILE), `${input.report.trim()}\n`, {
            fsync: true,
          });
        } catch (error) {
          return fileFailure('write', path, error);
        }
      }
      const record = await options.records.submit({
        agentId: context.agentId,
        report: input.report,
        ...(path === undefined ? {} : { path }),
      });
      const heading = `Final report from ${context.agentId}${path ? ` (${path})` : ''}:`;
      return {
        ok: true,
        status: 'submitted for approval',
        id: record.id,
        submittedAt: record.submittedAt,
        ...(path === undefined ? {} : { path }),
        post: `${heading}\n\n${input.report}`,
      };
    },
  };
}
