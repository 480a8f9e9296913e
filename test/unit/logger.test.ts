import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';

describe('the logger', () => {
  it('scrubs secrets from every line, in messages, fields, errors and children', () => {
    const lines: string[] = [];
    const { logger, setSecrets } = createLogger({
      destination: { write: (line: string) => void lines.push(line) },
    });
    setSecrets(['sk-live-secret', 'quote"secret']);
    const child = logger.child({ session: 'agent:main:webchat:direct:local' });
    child.info({ apiKey: 'sk-live-secret', nested: { value: 'quote"secret' } }, 'using sk-live-secret');
    child.error({ err: new Error('bad key sk-live-secret') }, 'failed');
    const output = lines.join('');
    expect(lines).toHaveLength(2);
    expect(output).not.toContain('sk-live-secret');
    expect(output).not.toContain('quote\\"secret');
    expect(output.match(/\[REDACTED\]/g)?.length).toBeGreaterThanOrEqual(4);
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ session: 'agent:main:webchat:direct:local' });
  });

  it('writes JSON lines when not pretty', () => {
    const lines: string[] = [];
    const { logger } = createLogger({
      pretty: false,
      destination: { write: (line: string) => void lines.push(line) },
    });
    logger.warn('hello');
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ level: 40, msg: 'hello' });
  });
});
