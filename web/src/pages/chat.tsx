// The web chat: the signed-in user's threads, the one on screen with its history (paged back),
// what is sent and streamed, buttons and files, the working / queued indicators and the composer.
// The user is the sign-in's (`GET /api/me`): the page never sends one.
import { useRef, useState } from 'preact/hooks';
import { Composer } from '../chat/composer.js';
import { linkedKeyOf, useLinkedSessions } from '../chat/linked.js';
import { MessageList } from '../chat/message-list.js';
import { ThreadPicker, useCurrentThread, useThreads } from '../chat/thread-picker.js';
import { useStickToBottom } from '../chat/use-stick-to-bottom.js';
import { useThreadChat } from '../chat/use-thread-chat.js';
import { useWebchatStream } from '../chat/use-webchat-stream.js';
import { streamStateText } from '../events.js';
import { useMe } from '../me.js';
import './chat.css';

export function ChatPage() {
  const me = useMe();
  const [thread, setThread] = useCurrentThread();
  const { threads, refresh } = useThreads();
  const { linked } = useLinkedSessions();
  const linkedView = linked.find((view) => view.sessionKey === linkedKeyOf(thread));
  const [news, setNews] = useState<ReadonlySet<string>>(new Set());
  const chat = useThreadChat(thread);
  const stream = useWebchatStream({
    thread,
    onEvent: chat.onEvent,
    onOtherThread: (other) => setNews((marked) => new Set(marked).add(other ?? '')),
  });
  const choose = (next: string | undefined) => {
    setNews((marked) => {
      const rest = new Set(marked);
      rest.delete(next ?? '');
      return rest;
    });
    setThread(next);
    // Keyboard users go on typing in the thread they chose.
    document.getElementById('text')?.focus();
  };
  const send = async (text: string) => {
    const problem = await chat.send(text);
    refresh();
    return problem;
  };
  const { history } = chat;
  const scroller = useRef<HTMLDivElement>(null);
  const follow = useStickToBottom(scroller, chat.log.items);
  return (
    <section class="chat" aria-labelledby="page-title">
      <div class="chat-head">
        <h2 id="page-title">Chat</h2>
        <ThreadPicker thread={thread} threads={threads} linked={linked} news={news} onChoose={choose} />
        <span
          id="connection"
          class={`connection${stream.state === 'connected' ? '' : ' offline'}`}
          role="status"
        >
          {streamStateText(stream.state, me.senderId)}
        </span>
      </div>
      {linkedView && (
        <p class="linked-note muted">
          Your {linkedView.platform === 'slack' ? 'Slack' : 'Discord'} direct chat ({linkedView.identity}):
          what you send here goes on there, and the answer is posted there too.
        </p>
      )}
      <div class="chat-scroll" ref={scroller}>
        <div class="history" aria-busy={history.loading ? 'true' : 'false'}>
          {history.next !== undefined && (
            <button type="button" class="plain" disabled={history.loading} onClick={chat.loadEarlier}>
              Load earlier messages
            </button>
          )}
          {history.loading && <p class="muted">Loading the history…</p>}
          {history.problem !== undefined && (
            <p role="alert">The history could not be read: {history.problem}</p>
          )}
          {!history.loading && history.next === undefined && chat.log.items.length === 0 && (
            <p class="muted">No messages in {linkedView ? 'this chat' : (thread ?? 'the main chat')} yet.</p>
          )}
        </div>
        <MessageList items={chat.log.items} queued={chat.queued} busy={chat.busy} onClick={chat.click} />
        <p class="working" role="status" aria-live="polite">
          {chat.working ? 'Working…' : ''}
        </p>
      </div>
      {follow.unseen && (
        <button type="button" class="new-messages" onClick={follow.toBottom}>
          New messages ↓
        </button>
      )}
      <Composer maxLength={me.maxMessageLength} onSend={send} />
    </section>
  );
}
