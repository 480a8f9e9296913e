import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../src/base/errors/index.js';
import { toolOutputFromController } from '../../src/extensions/toolpacks/controller/controller-exports.js';
import { inputRefusal, ToolpackInputError } from '../../src/extensions/toolpacks/input-error.js';
import { toolOutputFromRunner } from '../../src/extensions/toolpacks/runner/protocol.js';

/**
 * The two rules that turn a handler's return value into a tool output. They differ on purpose
 * (toolpack authors depend on each), so both are pinned here side by side.
 */
describe('tool outputs of toolpack handlers', () => {
  it('agree on a shaped value and on a bare one', () => {
    const shaped = { output: 'done', title: 'Title', metadata: { n: 1 }, extra: true };
    for (const rule of [toolOutputFromRunner, toolOutputFromController]) {
      expect(rule(shaped)).toEqual({ output: 'done', title: 'Title', metadata: { n: 1 } });
      expect(rule({ output: 'x', title: 7 })).toEqual({ output: 'x' });
      expect(rule('text')).toEqual({ output: 'text' });
      expect(rule(42)).toEqual({ output: 42 });
    }
  });

  it('differ on nothing: null from a runner (JSON has no undefined), empty text from a controller', () => {
    expect(toolOutputFromRunner(undefined)).toEqual({ output: null });
    expect(toolOutputFromRunner(null)).toEqual({ output: null });
    expect(toolOutputFromRunner({ output: undefined })).toEqual({ output: null });
    expect(toolOutputFromController(undefined)).toEqual({ output: '' });
    expect(toolOutputFromController(null)).toEqual({ output: null });
    expect(toolOutputFromController({ output: undefined })).toEqual({ output: undefined });
  });

  it('differ on an array with an output key: a runner keeps the array whole', () => {
    const array = Object.assign(['a'], { output: 'inner' });
    expect(toolOutputFromRunner(array)).toEqual({ output: array });
    expect(toolOutputFromController(array)).toEqual({ output: 'inner' });
  });
});

describe('a WebUI input refusal', () => {
  it('is a coded SwitchboardError with the status and the cause', () => {
    const cause = Object.assign(new Error('name is missing'), { statusCode: 422 });
    const refused = inputRefusal(cause, 'review.add');
    expect(refused).toBeInstanceOf(ToolpackInputError);
    expect(refused).toBeInstanceOf(SwitchboardError);
    expect(refused).toMatchObject({
      code: 'TOOLPACK_INPUT_REFUSED',
      name: 'ToolpackInputError',
      statusCode: 422,
      message: 'review.add refused the input: name is missing',
      cause,
    });
  });

  it('is not made of a failure (no 4xx status)', () => {
    expect(inputRefusal(new Error('broken'), 'review.add')).toBeUndefined();
    expect(inputRefusal(Object.assign(new Error('down'), { statusCode: 503 }), 'review.add')).toBeUndefined();
  });
});
