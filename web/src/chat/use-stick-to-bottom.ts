// The log follows new messages while the reader is at its end: the log scrolls (not the document,
// so the navigation and the composer stay in place). A reader who scrolled up stays where they
// are, and `unseen` says something new arrived below (the "New messages" button). What they send
// themselves always brings them to the end.
import type { RefObject } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { LogItem } from './chat-log.js';

/** Closer to the end than this (px) counts as at the end. */
const AT_END = 48;

export interface StickToBottom {
  /** Something arrived below while the reader was scrolled up. */
  unseen: boolean;
  /** Scrolls to the newest message. */
  toBottom(): void;
}

/** What changes when a message arrives or grows at the end (not when earlier ones are prepended). */
function tailOf(items: LogItem[]): string {
  const last = items[items.length - 1];
  if (last === undefined) return '';
  const size = last.kind === 'agent' || last.kind === 'system' ? last.text.length : 0;
  const buttons = last.kind === 'agent' ? `${last.actions?.length ?? 0}${last.decision ?? ''}` : '';
  return `${last.key}:${size}:${buttons}`;
}

export function useStickToBottom(scroller: RefObject<HTMLElement | null>, items: LogItem[]): StickToBottom {
  const atEnd = useRef(true);
  const [unseen, setUnseen] = useState(false);
  const toBottom = useCallback(() => {
    const box = scroller.current;
    if (box) box.scrollTop = box.scrollHeight;
    atEnd.current = true;
    setUnseen(false);
  }, [scroller]);
  useEffect(() => {
    const box = scroller.current;
    if (!box) return;
    const onScroll = () => {
      atEnd.current = box.scrollHeight - box.scrollTop - box.clientHeight <= AT_END;
      if (atEnd.current) setUnseen(false);
    };
    box.addEventListener('scroll', onScroll, { passive: true });
    return () => box.removeEventListener('scroll', onScroll);
  }, [scroller]);
  const tail = tailOf(items);
  const last = items[items.length - 1];
  const sentHere = last?.kind === 'user' && last.state === 'sending';
  useLayoutEffect(() => {
    if (tail === '') return;
    if (atEnd.current || sentHere) toBottom();
    else setUnseen(true);
  }, [tail]);
  return { unseen, toBottom };
}
