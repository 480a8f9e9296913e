import { describe, expect, it } from 'vitest';
import { markdownToHtml } from '../../web/src/markdown-html.js';

/**
 * The control UI's Markdown (web/src/markdown-html.ts, before DOMPurify): a `<` that does not open
 * a known inline tag closed later in the same text is shown as typed, so DOMPurify has nothing
 * unknown to drop and no words are lost (issue 33 item 5: "/help" showed "schema , patch ,").
 */
describe('markdownToHtml', () => {
  it('shows placeholders in angle brackets as text', () => {
    const html = markdownToHtml('schema <x>, patch <y>, apply <json>');
    expect(html).toContain('schema &lt;x&gt;, patch &lt;y&gt;, apply &lt;json&gt;');
  });

  it('keeps the words after an unknown tag (<branch>, <path>)', () => {
    const html = markdownToHtml('Push <branch> to origin, then open <path> in the editor.');
    expect(html).toBe('<p>Push &lt;branch&gt; to origin, then open &lt;path&gt; in the editor.</p>\n');
  });

  it('escapes an unknown tag paired with its closing tag', () => {
    expect(markdownToHtml('a <branch>main</branch> b')).toBe(
      '<p>a &lt;branch&gt;main&lt;/branch&gt; b</p>\n',
    );
  });

  it('shows an unclosed <code> as text: the rest of the message is not monospace', () => {
    const html = markdownToHtml('Type /approve <code>. Then **wait** for it.');
    expect(html).not.toMatch(/<code>/);
    expect(html).toContain('/approve &lt;code&gt;. Then <strong>wait</strong> for it.');
  });

  it('shows a line that is only an unknown tag as text, with the lines after it', () => {
    const html = markdownToHtml('Usage:\n\n<path>\nthe file to read');
    expect(html).toContain('&lt;path&gt;');
    expect(html).toContain('the file to read');
    expect(html).not.toMatch(/<path>/);
  });

  it('escapes a closing tag nothing opened, and a block tag inline', () => {
    expect(markdownToHtml('end </div> here <p> too')).toBe('<p>end &lt;/div&gt; here &lt;p&gt; too</p>\n');
  });

  it('keeps known inline tags that are closed, in lists and emphasis too', () => {
    expect(markdownToHtml('press <kbd>Ctrl</kbd>+<kbd>C</kbd>, x<sub>2</sub> and <code>a < b</code>')).toBe(
      '<p>press <kbd>Ctrl</kbd>+<kbd>C</kbd>, x<sub>2</sub> and <code>a &lt; b</code></p>\n',
    );
    expect(markdownToHtml('- **see <b>this</b> <tag>**')).toBe(
      '<ul>\n<li><strong>see <b>this</b> &lt;tag&gt;</strong></li>\n</ul>\n',
    );
    expect(markdownToHtml('one<br>two')).toBe('<p>one<br>two</p>\n');
  });

  it('leaves code spans and fences as they were (already text)', () => {
    expect(markdownToHtml('`/approve <code>`')).toBe('<p><code>/approve &lt;code&gt;</code></p>\n');
    expect(markdownToHtml('```\n<branch>\n```')).toBe('<pre><code>&lt;branch&gt;\n</code></pre>\n');
  });

  it('escapes a table cell tag and an HTML comment', () => {
    const html = markdownToHtml('| a | b |\n| - | - |\n| <x> | <!-- note --> |');
    expect(html).toContain('<td>&lt;x&gt;</td>');
    expect(html).toContain('&lt;!-- note --&gt;');
  });

  it('keeps an <img> (markdown.tsx shows it as a link) on its own line as inline', () => {
    expect(markdownToHtml('<img src="https://example.com/a.png" alt="pixel">')).toBe(
      '<p><img src="https://example.com/a.png" alt="pixel"></p>\n',
    );
  });
});
