// A session's sub-agents with kill and steer (placeholder: built by the session-actions lane).
export function SubagentsPanel({ sessionKey }: { sessionKey: string }) {
  return <section class="subagents" aria-label={`Sub-agents of ${sessionKey}`} />;
}
