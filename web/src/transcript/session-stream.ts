// The owner's live view of every session: `GET /api/events` read through openEventStream, each
// `session` and `entry` event handed to the page; the state says whether it is live.
import { useEffect, useRef, useState } from 'preact/hooks';
import { openEventStream, type StreamState } from '../events.js';
import type { SessionStreamEvent } from './types.js';

/** Follows the session events while the component is mounted; returns the stream's state. */
export function useSessionStream(onEvent: (event: SessionStreamEvent) => void): StreamState {
  const [state, setState] = useState<StreamState>('connecting');
  // The latest handler, without reopening the stream when it changes.
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(
    () =>
      openEventStream('/api/events', {
        onState: setState,
        onEvent(type, data) {
          const event = data as Record<string, unknown>;
          if (type === 'session') handler.current({ type, summary: event.summary } as SessionStreamEvent);
          else if (type === 'entry') handler.current({ type, ...event } as SessionStreamEvent);
        },
      }),
    [],
  );
  return state;
}
