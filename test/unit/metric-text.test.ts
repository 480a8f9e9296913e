import { describe, expect, it } from 'vitest';
import { withoutMetricLines } from '../../web/src/tools/metric-text.js';

// The Tools page shows an answer's metrics as cards; the lines of its text that only repeat a
// metric are left out of the rendered text (issue 33 item 7: each number shown once).

describe('withoutMetricLines', () => {
  const metrics = [
    { label: 'Agents', value: 2, description: '2 idle' },
    { label: 'Messages', value: 0 },
    { label: 'shell.exec', value: 2, description: '0 running, 1 completed, 1 failed' },
  ];

  it('drops the lines that repeat a metric, plain or as a list item, and keeps the rest', () => {
    const text = [
      'Shell activity:',
      '- shell.exec: 2 (0 running, 1 completed, 1 failed)',
      'Agents: 2 (2 idle)',
      '  Messages: 0',
      '',
      'Recent activity:',
      '- main shell.exec: echo hi',
    ].join('\n');
    expect(withoutMetricLines(text, metrics)).toBe(
      ['Shell activity:', '', 'Recent activity:', '- main shell.exec: echo hi'].join('\n'),
    );
  });

  it('keeps a line that says more than the metric, or another value', () => {
    const text = 'Agents: 2 (2 idle) and more\nMessages: 1\nAgents: 2';
    expect(withoutMetricLines(text, metrics)).toBe(text);
  });

  it('keeps the text whole without metrics', () => {
    expect(withoutMetricLines('Agents: 2 (2 idle)', [])).toBe('Agents: 2 (2 idle)');
  });
});
