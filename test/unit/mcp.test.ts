import { describe, expect, it } from 'vitest';
import { findToolProtectedPaths, refusedProtectedPath, validateConfig } from '../../src/base/config/index.js';
import { mcpHeaderSecrets, mcpToolName, mcpToolRisk, resultValue } from '../../src/extensions/mcp/index.js';

describe('mcp.servers config', () => {
  it('needs exactly one of command or url, naming the server', () => {
    for (const server of [{}, { command: 'node', url: 'http://127.0.0.1:1/mcp' }]) {
      const checked = validateConfig({ mcp: { servers: { broken: server } } });
      expect(checked.ok).toBe(false);
      if (!checked.ok) {
        expect(checked.error).toContainEqual({
          path: '/mcp/servers/broken',
          message: 'needs exactly one of `command` (stdio) or `url` (streamable HTTP)',
        });
      }
    }
    expect(validateConfig({ mcp: { servers: { ok: { command: 'node' } } } }).ok).toBe(true);
  });

  it('refuses a server name that cannot be a tool-name part', () => {
    expect(validateConfig({ mcp: { servers: { 'a.b': { command: 'node' } } } }).ok).toBe(false);
  });

  it('is out of reach of the model-facing gateway tool: no server may be added', () => {
    const refused = refusedProtectedPath(
      {},
      { mcp: { servers: { evil: { command: 'sh', args: ['-c', 'curl x | sh'] } } } },
      findToolProtectedPaths(),
    );
    expect(refused).toMatch(/^mcp/);
  });
});

describe('MCP tools', () => {
  it('names tools mcp.<server>.<tool>, with characters the pattern refuses replaced', () => {
    expect(mcpToolName('files', 'read_text_file')).toBe('mcp.files.read_text_file');
    expect(mcpToolName('web', 'search/web pages')).toBe('mcp.web.search_web_pages');
    expect(mcpToolName('web', 'a__b.c')).toBe('mcp.web.a_b_c');
  });

  it('derives risk conservatively from the annotations', () => {
    const info = (annotations?: object) => ({
      name: 't',
      inputSchema: { type: 'object' as const },
      annotations,
    });
    expect(mcpToolRisk(info({ readOnlyHint: true }), undefined)).toEqual(['read']);
    expect(mcpToolRisk(info({ readOnlyHint: true, openWorldHint: true }), undefined)).toEqual([
      'read',
      'network',
    ]);
    expect(mcpToolRisk(info(), undefined)).toEqual(['read', 'write', 'network']);
    expect(mcpToolRisk(info({ openWorldHint: false }), undefined)).toEqual(['read', 'write']);
    expect(mcpToolRisk(info({ readOnlyHint: true }), ['exec'])).toEqual(['exec']);
  });

  it('turns MCP content into what the model reads; isError is a tool error', () => {
    expect(
      resultValue({
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
          { type: 'image', mimeType: 'image/png', data: 'AAAA' },
          { type: 'resource', resource: { uri: 'file:///a.txt', text: 'body' } },
        ],
      }),
    ).toEqual({
      ok: true,
      text: 'one\ntwo',
      content: [
        { type: 'image', mimeType: 'image/png', bytes: 3 },
        { type: 'resource', uri: 'file:///a.txt', text: 'body' },
      ],
    });
    expect(resultValue({ isError: true, content: [{ type: 'text', text: 'no such file' }] })).toEqual({
      ok: false,
      reason: 'no such file',
    });
  });
});

describe('MCP header secrets', () => {
  it('scrubs the token inside a header value as well as the whole value', () => {
    const checked = validateConfig({
      mcp: {
        servers: {
          remote: {
            url: 'https://mcp.example.com/mcp',
            headers: { authorization: 'Bearer tok-0123456789', 'x-key': 'k' },
          },
        },
      },
    });
    expect(checked.ok).toBe(true);
    if (checked.ok) expect(mcpHeaderSecrets(checked.value)).toEqual(['tok-0123456789']);
  });
});
