import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Lexer, type Token } from 'marked';

/*
 * The links of a Markdown page and the anchors its headings make, read with marked's lexer (so code
 * spans and fences hold no links), and the links that do not resolve: a relative file that does not
 * exist, or a `#anchor` no heading of the Markdown file it points into has as its GitHub slug.
 */

export interface MarkdownLink {
  /** As written: `docs/config.md#the-start-check`, `#logs`, `images/chat.png`. */
  target: string;
  /** 1-based line of the page where it is written. */
  line: number;
}

/** Every token, depth first, with the tokens inside it (list items, table cells, emphasis, …). */
function* allTokens(tokens: readonly Token[]): Generator<Token> {
  for (const token of tokens) {
    yield token;
    const nested = token as {
      tokens?: Token[];
      items?: { tokens: Token[] }[];
      header?: { tokens: Token[] }[];
      rows?: { tokens: Token[] }[][];
    };
    if (nested.tokens) yield* allTokens(nested.tokens);
    for (const item of nested.items ?? []) yield* allTokens(item.tokens);
    for (const cell of nested.header ?? []) yield* allTokens(cell.tokens);
    for (const row of nested.rows ?? []) for (const cell of row) yield* allTokens(cell.tokens);
  }
}

const WEB = /^[a-z][a-z0-9+.-]*:/i;

/** The page's relative links and images (web addresses and mail left out), in the order written. */
export function markdownLinks(text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  let cursor = 0;
  for (const token of allTokens(new Lexer().lex(text))) {
    if (token.type !== 'link' && token.type !== 'image') continue;
    const at = text.indexOf(token.raw, cursor);
    if (at >= 0) cursor = at + token.raw.length;
    const href = (token as { href: string }).href;
    if (WEB.test(href) || !token.raw.endsWith(')')) continue; // autolinks and web addresses
    links.push({ target: href, line: text.slice(0, Math.max(at, 0)).split('\n').length });
  }
  return links;
}

/** GitHub's anchor for a heading's text: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a page's headings, a repeated one numbered (`logs`, `logs-1`) as GitHub does. */
export function headingSlugs(text: string): string[] {
  const seen = new Map<string, number>();
  const slugs: string[] = [];
  for (const token of allTokens(new Lexer().lex(text))) {
    if (token.type !== 'heading') continue;
    const plain = (token as { tokens: Token[] }).tokens.map(plainText).join('');
    const base = slug(plain);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.push(count === 0 ? base : `${base}-${count}`);
  }
  return slugs;
}

/** A heading part as GitHub renders it to text: code, emphasis and link text kept, markup dropped. */
function plainText(token: Token): string {
  const nested = (token as { tokens?: Token[] }).tokens;
  if (nested) return nested.map(plainText).join('');
  return (token as { text?: string }).text ?? token.raw;
}

/**
 * The links of `page` (relative to `root`) that do not resolve, as `page:line: target (why)`; an
 * anchor is checked only where it points into a Markdown file.
 */
export function brokenLinks(root: string, page: string): string[] {
  const file = path.join(root, page);
  const text = readFileSync(file, 'utf8');
  const broken: string[] = [];
  for (const { target, line } of markdownLinks(text)) {
    const [pathPart = '', anchor] = target.split('#');
    const resolved = pathPart === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(pathPart));
    const name = path.relative(root, resolved);
    if (!existsSync(resolved)) {
      broken.push(`${page}:${line}: ${target} (no such file)`);
    } else if (anchor !== undefined && resolved.endsWith('.md')) {
      const slugs = headingSlugs(readFileSync(resolved, 'utf8'));
      if (!slugs.includes(anchor))
        broken.push(`${page}:${line}: ${target} (no heading with that slug in ${name})`);
    }
  }
  return broken;
}
