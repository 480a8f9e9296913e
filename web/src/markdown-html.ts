// Markdown to HTML as the control UI parses it (marked, GitHub flavour, line breaks kept), before
// `markdown.tsx` sanitizes it. Pure: no DOM, so it is tested in Node.
//
// marked passes HTML through and DOMPurify then drops every tag it does not know, with what the tag
// seemed to open: "schema <path>, patch <json>" lost its placeholders, a model's "<branch>" its
// words, an unclosed "<code>" turned the rest of the message monospace. So a tag is kept only when
// it is a known inline tag (KEPT_TAGS) closed later in the same span of text (or a void one: <br>,
// <img>);
// every other `<` is shown as typed. An HTML block (a line that is only a tag) is read as a paragraph.
import { Lexer, Marked, type Token, type Tokens } from 'marked';

/** Inline tags a message may use; closed in the same span, or void. */
const KEPT_TAGS = new Set([
  'a',
  'abbr',
  'b',
  'cite',
  'code',
  'del',
  'dfn',
  'em',
  'i',
  'ins',
  'kbd',
  'mark',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strong',
  'sub',
  'sup',
  'time',
  'u',
  'var',
]);
/** Void tags kept: an <img> is then shown as a link by markdown.tsx unless its source is inline. */
const VOID_TAGS = new Set(['br', 'wbr', 'img']);
const TAG = /^<(\/?)([A-Za-z][A-Za-z0-9-]*)(?=[\s/>])[^>]*>$/;

const OPTIONS = { gfm: true, breaks: true, async: false } as const;

const marked = new Marked({
  ...OPTIONS,
  hooks: {
    processAllTokens(tokens) {
      visit(tokens);
      return tokens;
    },
  },
});

/** `text` as HTML, not yet sanitized. */
export function markdownToHtml(text: string): string {
  return marked.parse(text) as string;
}

/** Every span of inline tokens below `tokens`, checked; an HTML block becomes a paragraph of its text. */
function visit(tokens: Token[]): void {
  for (const [index, token] of tokens.entries()) {
    if (token.type === 'html' && (token as Tokens.HTML).block)
      tokens[index] = {
        type: 'paragraph',
        raw: token.raw,
        text: token.text,
        tokens: Lexer.lexInline(token.text.trimEnd(), OPTIONS),
      };
  }
  checkSpan(tokens);
  for (const token of tokens) for (const child of childSpans(token)) visit(child);
}

function childSpans(token: Token): Token[][] {
  const spans: Token[][] = [];
  if ('tokens' in token && Array.isArray(token.tokens)) spans.push(token.tokens);
  if (token.type === 'list') for (const item of (token as Tokens.List).items) spans.push(item.tokens);
  if (token.type === 'table') {
    const table = token as Tokens.Table;
    for (const cell of table.header) spans.push(cell.tokens);
    for (const row of table.rows) for (const cell of row) spans.push(cell.tokens);
  }
  return spans;
}

/**
 * One span: a known inline tag stays when it is void or closed later in the span (its closing tag
 * too); any other inline tag becomes text. Text marked read as raw after an opening `<code>`,
 * `<kbd>` or `<pre>` is escaped inside a kept one, and read again as Markdown after one shown as text.
 */
function checkSpan(tokens: Token[]): void {
  const kept = new Set<Token>();
  const open: Array<{ name: string; token: Token }> = [];
  for (const token of tokens) {
    if (token.type !== 'html' || (token as Tokens.HTML).block) continue;
    const match = TAG.exec(token.raw);
    const name = match?.[2]?.toLowerCase();
    if (!match || name === undefined) continue;
    if (VOID_TAGS.has(name) && match[1] === '') kept.add(token);
    else if (!KEPT_TAGS.has(name)) continue;
    else if (match[1] === '') open.push({ name, token });
    else {
      const at = open.map((entry) => entry.name).lastIndexOf(name);
      if (at < 0) continue;
      const opener = open[at];
      if (opener) kept.add(opener.token).add(token);
      open.splice(at);
    }
  }
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index];
    if (token === undefined || kept.has(token)) continue;
    if (token.type === 'html' && !(token as Tokens.HTML).block) {
      tokens[index] = { type: 'text', raw: token.raw, text: escapeHtml(token.raw), escaped: true };
      continue;
    }
    if (token.type !== 'text' || !(token as Tokens.Text).escaped) continue;
    if (insideKept(tokens, index, kept))
      tokens[index] = { ...token, text: escapeHtml((token as Tokens.Text).raw) } as Tokens.Text;
    else {
      const relexed = Lexer.lexInline(token.raw, OPTIONS);
      tokens.splice(index, 1, ...relexed);
      checkSpan(relexed);
      index += relexed.length - 1;
    }
  }
}

/** Whether the nearest tag before `index` is a kept opening one (raw text inside a kept `<code>`). */
function insideKept(tokens: Token[], index: number, kept: Set<Token>): boolean {
  for (let back = index - 1; back >= 0; back -= 1) {
    const token = tokens[back];
    if (token?.type === 'html') return kept.has(token) && !token.raw.startsWith('</');
    if (token?.type === 'text' && !(token as Tokens.Text).escaped) return false;
  }
  return false;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
