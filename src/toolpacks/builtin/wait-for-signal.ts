import { Type } from '@sinclair/typebox';
import type { Tool } from '../../tools/index.js';

const WaitParameters = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 500, description: 'What you are waiting for.' })) },
  { additionalProperties: false },
);

/** `coordination.wait_for_signal`: ends the turn (a boundary) until a signal or message wakes the agent. */
export function createWaitForSignalTool(): Tool<typeof WaitParameters> {
  return {
    name: 'coordination.wait_for_signal',
    risk: ['read'],
    description:
      'End your turn until a signal or message arrives for you; you are woken with it. Use it instead of polling.',
    parameters: WaitParameters,
    boundary: true,
    execute: (input) => ({
      ok: true,
      status: 'waiting for a signal',
      ...(input.reason ? { reason: input.reason } : {}),
    }),
  };
}
