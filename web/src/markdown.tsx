// Markdown as the control UI shows every message and note: parsed by marked (GitHub flavour, line
// breaks kept), then sanitized by DOMPurify, so a message, a tool result or a toolpack's output can
// carry no script, event handler or javascript: link. Links open in a new tab without a referrer.
import DOMPurify from 'dompurify';
import { Marked } from 'marked';

const marked = new Marked({ gfm: true, breaks: true, async: false });

const purify = DOMPurify(window);
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

const PURIFY_OPTIONS = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe'],
  FORBID_ATTR: ['style'],
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
