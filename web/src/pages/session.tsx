// One session: its transcript (placeholder: built by the sessions lane), its sub-agents and the
// reply box (the session-actions lane's components, mounted here).
import { ReplyBox } from '../session/reply-box.js';
import { SubagentsPanel } from '../session/subagents-panel.js';

export function SessionPage({ sessionKey }: { sessionKey: string }) {
  return (
    <section aria-labelledby="page-title">
      <h2 id="page-title">{sessionKey}</h2>
      <ReplyBox sessionKey={sessionKey} />
      <SubagentsPanel sessionKey={sessionKey} />
    </section>
  );
}
