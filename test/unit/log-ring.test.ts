import { describe, expect, it } from 'vitest';
import { createLogger, LogRing } from '../../src/base/logging/index.js';
import { logLineView } from '../../src/surfaces/control/routes/logs.js';

// The Logs page's source: the newest lines of the process logger, scrubbed as the log file's are.

describe('the log ring', () => {
  it('keeps the newest lines, numbered, and answers those after a number', () => {
    const ring = new LogRing(3);
    for (const text of ['a', 'b', 'c', 'd']) ring.push(`${text}\n`);
    expect(ring.since()).toEqual([
      { seq: 2, line: 'b' },
      { seq: 3, line: 'c' },
      { seq: 4, line: 'd' },
    ]);
    expect(ring.since(3)).toEqual([{ seq: 4, line: 'd' }]);
    expect(ring.since(4)).toEqual([]);
  });

  it("the logger's recent lines are scrubbed of secrets, also those a terminal may show", () => {
    const written: string[] = [];
    const log = createLogger({
      destination: { write: (line: string) => void written.push(line) },
      terminal: true,
    });
    log.setSecrets(['s3cret-token-value', 'shown-once-token'], { terminalMayShow: ['shown-once-token'] });
    log.logger.info({ url: '/?token=shown-once-token' }, 'signed in with s3cret-token-value');
    const [recent] = log.recent();
    expect(recent?.line).not.toContain('s3cret-token-value');
    expect(recent?.line).not.toContain('shown-once-token');
    // The terminal got the link it may show: the ring is not the terminal's copy.
    expect(written.join('')).toContain('shown-once-token');
    expect(logLineView(recent ?? { seq: 0, line: '' })).toMatchObject({ seq: 1, level: 'info' });
  });

  it('a line that is not pino JSON is shown whole, as info', () => {
    expect(logLineView({ seq: 7, line: 'plain words' })).toEqual({
      seq: 7,
      time: '',
      level: 'info',
      text: 'plain words',
    });
  });
});
