// The reply box under a transcript: `POST /api/sessions/:key/messages`. A web chat session takes
// the reply as its own user (the owner, or that user); a Slack or Discord thread takes an owner's
// post as the bot, prefixed with who posted. The text stays until the gateway has taken it.
import { useState } from 'preact/hooks';
import { api, problemText } from '../api.js';
import { useMe } from '../me.js';
import { channelOfKey, PLATFORM_NAMES } from './session-key.js';
import './session-actions.css';

type Sending =
  | { state: 'idle' }
  | { state: 'sending' }
  | { state: 'sent'; text: string }
  | { state: 'failed'; problem: string };

export function ReplyBox({ sessionKey }: { sessionKey: string }) {
  const me = useMe();
  const channel = channelOfKey(sessionKey);
  const [text, setText] = useState('');
  const [sending, setSending] = useState<Sending>({ state: 'idle' });
  const label = `Reply in ${sessionKey}`;
  const fieldId = `reply-${sessionKey}`;

  if (channel === 'subagent' || channel === undefined) {
    return (
      <section class="reply card" aria-label={label}>
        <p class="muted">A sub-agent session takes no reply: steer it from its parent's sub-agents.</p>
      </section>
    );
  }
  const platform = channel === 'webchat' ? undefined : PLATFORM_NAMES[channel];
  if (platform && !me.owner) {
    return (
      <section class="reply card" aria-label={label}>
        <p class="muted">Only an owner may post into a {platform} thread.</p>
      </section>
    );
  }

  const tooLong = text.length > me.maxMessageLength;
  const send = async () => {
    const sent = text;
    if (sent.trim() === '' || tooLong || sending.state === 'sending') return;
    setSending({ state: 'sending' });
    try {
      await api(`/api/sessions/${encodeURIComponent(sessionKey)}/messages`, { text: sent });
      // Typed meanwhile? Keep what is there now; clear only what was sent.
      setText((current) => (current === sent ? '' : current));
      setSending({ state: 'sent', text: platform ? `Posted into the ${platform} thread.` : 'Sent.' });
    } catch (error) {
      setSending({ state: 'failed', problem: problemText(error) });
    }
  };
  const onSubmit = (event: Event) => {
    event.preventDefault();
    void send();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void send();
    }
  };
  const busy = sending.state === 'sending';
  return (
    <form class="reply card" aria-label={label} aria-busy={busy} onSubmit={onSubmit}>
      <label for={fieldId}>
        {platform ? `Post into the ${platform} thread` : `Reply as ${userOfKey(sessionKey) ?? me.user}`}
      </label>
      <textarea
        id={fieldId}
        rows={3}
        value={text}
        aria-invalid={tooLong}
        aria-describedby={`${fieldId}-hint`}
        onInput={(event) => setText((event.target as HTMLTextAreaElement).value)}
        onKeyDown={onKeyDown}
      />
      <div class="reply-row">
        <span id={`${fieldId}-hint`} class={tooLong ? '' : 'muted'} role={tooLong ? 'alert' : undefined}>
          {tooLong
            ? `Too long: ${text.length} of at most ${me.maxMessageLength} characters; shorten it to send.`
            : platform
              ? `Ctrl+Enter posts. The bot posts it, prefixed with ${me.senderId}.`
              : 'Ctrl+Enter sends.'}
        </span>
        <button type="submit" disabled={busy || tooLong || text.trim() === ''}>
          {busy ? 'Sending…' : platform ? 'Post' : 'Send'}
        </button>
      </div>
      <p aria-live="polite" class="muted">
        {sending.state === 'sending' ? 'Sending…' : sending.state === 'sent' ? sending.text : ''}
      </p>
      {sending.state === 'failed' && <p role="alert">Not sent: {sending.problem}</p>}
    </form>
  );
}

/** The web chat user of a web chat session key (`agent:<id>:webchat:direct:<user>[:…]`). */
function userOfKey(key: string): string | undefined {
  return /^agent:[^:]+:webchat:direct:([^:]+)/.exec(key)?.[1];
}
