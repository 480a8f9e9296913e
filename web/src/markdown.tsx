// Markdown as the control UI shows every message and note: parsed by marked (GitHub flavour, line
// breaks kept), then sanitized by DOMPurify, so a message, a tool result or a toolpack's output can
// carry no script, event handler or javascript: link. Links open in a new tab without a referrer.
// An image is kept only with a data: URL (its bytes are in the text): any other src would make the
// browser send a request the owner did not ask for (`![](/api/…?token=…)`, a tracking pixel), so
// it is dropped and the image shows its alt text only; srcset and media elements are not allowed.
import DOMPurify from 'dompurify';
import { Marked } from 'marked';

const marked = new Marked({ gfm: true, breaks: true, async: false });

const purify = DOMPurify(window);
/** The only image source kept: the picture's own bytes. */
const INLINE_IMAGE = /^data:image\//i;

purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'IMG' && !INLINE_IMAGE.test(node.getAttribute('src') ?? '')) {
    node.removeAttribute('src');
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

/** Markdown text as sanitized HTML. */
function markdownHtml(text: string): string {
  return purify.sanitize(marked.parse(text) as string, PURIFY_OPTIONS);
}

export function Markdown({ text, className }: { text: string; className?: string }) {
  const classes = className ? `markdown ${className}` : 'markdown';
  // The HTML is sanitized by DOMPurify (markdownHtml).
  return <div class={classes} dangerouslySetInnerHTML={{ __html: markdownHtml(text) }} />;
}
