// Sending in a thread and clicking a reply's button: the POSTs of the chat page. The thread is
// read when the POST starts; its answer is shown only while that thread is still on screen.
import { api, problemText } from '../api.js';
import {
  append,
  applyDecision,
  applyReply,
  type ChatLog,
  type ReplyAction,
  type ReplyView,
  updateUser,
} from './chat-log.js';
import { linkedKeyOf } from './linked.js';

/** A message sent from this page whose POST has not been answered (its turn has not ended). */
export interface Pending {
  key: string;
  thread: string | undefined;
  /** The answer's first token (or the whole reply) has arrived. */
  answered: boolean;
}

export interface ThreadPostsOptions {
  /** The thread on screen. */
  current: { current: string | undefined };
  setLog(change: (log: ChatLog) => ChatLog): void;
  setPending(change: (list: Pending[]) => Pending[]): void;
  /** How many messages this page has sent (their keys). */
  sent: { current: number };
  /**
   * The ids of replies that came in a POST answer: their turn has ended, so their event arriving
   * late on the stream is no first token of the next message's answer.
   */
  finished: { current: Set<string> };
}

export function createThreadPosts(options: ThreadPostsOptions) {
  const { current, setLog, setPending, sent, finished } = options;
  const send = async (text: string) => {
    const asked = current.current;
    sent.current += 1;
    const key = `sent:${sent.current}`;
    setLog((shown) => append(shown, { kind: 'user', key, text, state: 'sending' }));
    setPending((list) => [...list, { key, thread: asked, answered: false }]);
    try {
      // A linked session (a Slack or Discord direct chat) takes it through its own route.
      const linked = linkedKeyOf(asked);
      const answer =
        linked === undefined
          ? await api<{ replies: ReplyView[] }>('/api/webchat/messages', {
              text,
              ...(asked === undefined ? {} : { thread: asked }),
            })
          : await api<{ replies: ReplyView[] }>('/api/webchat/linked/messages', { key: linked, text });
      for (const reply of answer.replies) finished.current.add(reply.id);
      // The page may show another thread now: the answer belongs to the one it was sent in.
      if (current.current === asked)
        setLog((shown) => updateUser(answer.replies.reduce(applyReply, shown), key, { state: 'sent' }));
      return undefined;
    } catch (error) {
      const problem = problemText(error);
      if (current.current === asked) setLog((shown) => updateUser(shown, key, { state: 'failed', problem }));
      return problem;
    } finally {
      setPending((list) => list.filter((item) => item.key !== key));
    }
  };

  const click = async (id: string, value: string) => {
    const asked = current.current;
    try {
      const answer = await api<{ text: string; actions?: ReplyAction[] }>('/api/webchat/action', {
        action: value,
        reply: id,
        ...(asked === undefined ? {} : { thread: asked }),
      });
      if (!answer.text) return 'The gateway did not answer the click.';
      // An answer with buttons did not decide (not an approver's click): the buttons stay, it shows under them.
      if (answer.actions?.length) return answer.text;
      if (current.current === asked) setLog((shown) => applyDecision(shown, id, answer.text));
      return undefined;
    } catch (error) {
      return problemText(error);
    }
  };
  return { send, click };
}
