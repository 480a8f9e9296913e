// The signed-in user's web chat event stream (`GET /api/webchat/events`, every thread): events of
// the thread on screen go to `onEvent`, the others mark their thread as having news. The user is
// the sign-in's: the page never names one. A 401 shows the sign-in page (openEventStream says so).
import { useEffect, useRef, useState } from 'preact/hooks';
import { openEventStream, type StreamState } from '../events.js';

export interface WebchatStream {
  state: StreamState;
}

export function useWebchatStream(options: {
  thread: string | undefined;
  onEvent(type: string, data: Record<string, unknown>): void;
  /** An event for a thread not on screen (`undefined`: the main chat). */
  onOtherThread(thread: string | undefined): void;
}): WebchatStream {
  const [state, setState] = useState<StreamState>('connecting');
  // The stream stays open across thread switches and renders: handlers are read from the ref.
  const latest = useRef(options);
  latest.current = options;
  useEffect(
    () =>
      openEventStream('/api/webchat/events', {
        onEvent(type, data) {
          if (typeof data !== 'object' || data === null) return;
          const event = data as Record<string, unknown>;
          const thread = typeof event.thread === 'string' && event.thread !== '' ? event.thread : undefined;
          if (type === 'ready') return;
          if (thread === latest.current.thread) latest.current.onEvent(type, event);
          else latest.current.onOtherThread(thread);
        },
        onState: setState,
      }),
    [],
  );
  return { state };
}
