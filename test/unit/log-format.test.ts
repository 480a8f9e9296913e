import { describe, expect, it } from 'vitest';
import { formatLogLine } from '../../src/base/logging/index.js';

const TIME = Date.UTC(2026, 4, 4, 9, 12, 3, 120);

describe('formatLogLine (switchboard logs)', () => {
  it('puts time (UTC), level, component and message first, then the fields', () => {
    const line = JSON.stringify({
      level: 30,
      time: TIME,
      pid: 4242,
      component: 'router',
      session: 'agent:main:webchat:direct:local',
      rounds: 2,
      msg: 'run ended',
    });
    expect(formatLogLine(line)).toBe(
      '2026-05-04 09:12:03.120Z INFO  [router] run ended session=agent:main:webchat:direct:local rounds=2',
    );
  });

  it('quotes values with spaces, shows objects as JSON and cuts long values', () => {
    const line = JSON.stringify({
      level: 40,
      time: TIME,
      msg: 'odd',
      reason: 'two words',
      issues: [{ path: '/log/file/path' }],
      long: 'x'.repeat(400),
    });
    const formatted = formatLogLine(line);
    expect(formatted).toContain('WARN  odd reason="two words" issues="[{\\"path\\":\\"/log/file/path\\"}]"');
    expect(formatted).toContain(`long=${'x'.repeat(300)}…`);
    expect(formatted).not.toContain('x'.repeat(301));
  });

  it("shows an error's type and message on the line and its stack indented below", () => {
    const line = JSON.stringify({
      level: 50,
      time: TIME,
      err: {
        type: 'TypeError',
        message: 'boom',
        stack: 'TypeError: boom\n    at one (a.js:1:1)\n    at two (b.js:2:2)',
      },
      msg: 'start failed',
    });
    expect(formatLogLine(line).split('\n')).toEqual([
      '2026-05-04 09:12:03.120Z ERROR start failed err="TypeError: boom"',
      '    at one (a.js:1:1)',
      '    at two (b.js:2:2)',
    ]);
  });

  it('gives back lines that are not pino JSON unchanged (pm2 notices, stderr lines)', () => {
    for (const line of ['switchboard: not starting: x', '{not json', '[1,2]', ''])
      expect(formatLogLine(line)).toBe(line);
  });
});
