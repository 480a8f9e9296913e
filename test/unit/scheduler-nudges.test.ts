import { describe, expect, it } from 'vitest';
import { backoffDelay, renderTemplate } from '../../src/engine/signals/index.js';

/** The pure parts of the nudges and monitors; their behaviour is in test/integration/scheduler-nudges.test.ts. */

describe('backoffDelay', () => {
  const config = { initialDelayMs: 1000, backoffFactor: 2, maxDelayMs: 5000 };
  it.each([
    [1, 1000],
    [2, 2000],
    [3, 4000],
    [4, 5000],
    [60, 5000],
  ])('the %i-th delay is %i ms (initialDelayMs × backoffFactor^(n−1), at most maxDelayMs)', (n, delay) => {
    expect(backoffDelay(config, n)).toBe(delay);
  });
  it('stays at maxDelayMs when the product overflows', () => {
    expect(backoffDelay({ initialDelayMs: 1e300, backoffFactor: 100, maxDelayMs: 7 }, 400)).toBe(7);
  });
});

describe('renderTemplate', () => {
  const values = { agent: 'worker', quietMinutes: 31, attempt: 2 };
  it.each([
    ['{{agent}} quiet for {{quietMinutes}} min', 'worker quiet for 31 min'],
    ['{{ agent }} (spaces inside)', 'worker (spaces inside)'],
    ['{{unknown}} stays, {{attempt}} fills', '{{unknown}} stays, 2 fills'],
    ['{{constructor}} is not a value', '{{constructor}} is not a value'],
    ['no placeholders', 'no placeholders'],
  ])('%s', (template, rendered) => {
    expect(renderTemplate(template, values)).toBe(rendered);
  });
});
