// The message box. A message over the gateway's limit (`maxMessageLength`, counted in characters
// as the server counts them: code points) is refused here, before sending, and stays in the box;
// a send that fails puts its text back. The draft is kept in sessionStorage under the signed-in
// user (chat-storage.ts), so a sign-in in between (the API answered 401) loses nothing, and the
// next user in the tab never sees it.
import { useEffect, useRef, useState } from 'preact/hooks';
import { useMe } from '../me.js';
import { characterCount } from '../text.js';
import { draftKey } from './chat-storage.js';

export function Composer(props: {
  maxLength: number;
  /** Sends the text; resolves with what went wrong when it was not sent. */
  onSend(text: string): Promise<string | undefined>;
}) {
  const { maxLength } = props;
  const draftName = draftKey(useMe().user);
  const [text, setText] = useState(() => sessionStorage.getItem(draftName) ?? '');
  const [problem, setProblem] = useState<string>();
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (text) sessionStorage.setItem(draftName, text);
    else sessionStorage.removeItem(draftName);
  }, [text, draftName]);
  const count = characterCount(text);
  const over = count > maxLength;

  const submit = async (event?: Event) => {
    event?.preventDefault();
    const message = text.trim();
    if (!message) return;
    if (characterCount(message) > maxLength) {
      setProblem(
        `This message is ${characterCount(message).toLocaleString('en')} characters; the most is ${maxLength.toLocaleString('en')}. Shorten it or split it: it was not sent.`,
      );
      box.current?.focus();
      return;
    }
    setProblem(undefined);
    setText('');
    const failed = await props.onSend(message);
    if (failed === undefined) return;
    // The text comes back unless something new was typed meanwhile; stored at once, as the page
    // may be gone (a 401 shows the sign-in page, and the draft waits for the next one).
    if (!sessionStorage.getItem(draftName)) sessionStorage.setItem(draftName, message);
    setText((typed) => (typed === '' ? message : typed));
    setProblem(`Not sent: ${failed}. The text is back in the box.`);
  };

  return (
    <form id="composer" class="composer" onSubmit={submit} aria-label="Send a message">
      <label for="text" class="visually-hidden">
        Message
      </label>
      <textarea
        id="text"
        ref={box}
        rows={2}
        placeholder="Message, or /help"
        value={text}
        aria-invalid={over ? 'true' : undefined}
        aria-describedby="composer-help"
        onInput={(event) => setText((event.currentTarget as HTMLTextAreaElement).value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
            event.preventDefault();
            void submit();
          }
        }}
      />
      <button type="submit">Send</button>
      <p id="composer-help" class={`help${over ? ' over' : ''}`}>
        {count > maxLength * 0.9
          ? `${count.toLocaleString('en')} / ${maxLength.toLocaleString('en')} characters`
          : 'Enter sends, Shift+Enter starts a new line'}
      </p>
      {problem !== undefined && (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}
