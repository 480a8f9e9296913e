// The reply box under a transcript: `POST /api/sessions/:key/messages`. A web chat session takes
// the reply as its own user (the owner, or that user); a Slack or Discord thread takes an owner's
// post as the bot, prefixed with who posted. A refused reply comes back into the field.
import { useState } from 'preact/hooks';
import { api, problemText } from '../api.js';
import { useMe } from '../me.js';
import { characterCount } from '../text.js';
import { channelOfKey, PLATFORM_NAMES, userOfKey } from './session-key.js';
import './session-actions.css';

type Outcome = { state: 'none' } | { state: 'sent'; text: string } | { state: 'failed'; problem: string };

export function ReplyBox({ sessionKey }: { sessionKey: string }) {
  const me = useMe();
  const channel = channelOfKey(sessionKey);
  const [text, setText] = useState('');
  const [pending, setPending] = useState(0);
  const [outcome, setOutcome] = useState<Outcome>({ state: 'none' });
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

  const count = characterCount(text);
  const tooLong = count > me.maxMessageLength;
  // The field empties at once (a second message may follow while the first turn runs, and waits
  // behind it); a refused one comes back into the field unless something new was typed there.
  const send = async () => {
    const sent = text;
    if (sent.trim() === '' || tooLong) return;
    setText('');
    setPending((count) => count + 1);
    try {
      await api(`/api/sessions/${encodeURIComponent(sessionKey)}/messages`, { text: sent });
      setOutcome({ state: 'sent', text: platform ? `Posted into the ${platform} thread.` : 'Sent.' });
    } catch (error) {
      setText((current) => (current === '' ? sent : current));
      setOutcome({ state: 'failed', problem: problemText(error) });
    } finally {
      setPending((count) => count - 1);
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
  const busy = pending > 0;
  return (
    <form class="reply card" aria-label={label} aria-busy={busy} onSubmit={onSubmit}>
      <label for={fieldId}>{fieldLabel(platform, userOfKey(sessionKey) ?? me.user, me.user)}</label>
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
            ? `Too long: ${count} of at most ${me.maxMessageLength} characters; shorten it to send.`
            : platform
              ? `Ctrl+Enter posts. The bot posts it, prefixed with ${me.senderId}.`
              : 'Ctrl+Enter sends.'}
        </span>
        <button type="submit" disabled={tooLong || text.trim() === ''}>
          {platform ? 'Post' : 'Send'}
        </button>
      </div>
      <p aria-live="polite" class="muted">
        {busy
          ? platform
            ? 'Posting…'
            : 'Sent; the answer comes in the transcript…'
          : outcome.state === 'sent'
            ? outcome.text
            : ''}
      </p>
      {!busy && outcome.state === 'failed' && <p role="alert">Not sent: {outcome.problem}</p>}
    </form>
  );
}

/**
 * What the box does: in your own web chat you reply as yourself; an owner's words in anyone
 * else's chat are posted by the bot under the owner's sender id (never as that user).
 */
function fieldLabel(platform: string | undefined, chatUser: string, me: string): string {
  if (platform) return `Post into the ${platform} thread`;
  return chatUser === me ? `Reply as ${me}` : `Post into ${chatUser}'s chat as the bot`;
}
