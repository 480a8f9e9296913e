// The reply box under a transcript (placeholder: built by the session-actions lane).
export function ReplyBox({ sessionKey }: { sessionKey: string }) {
  return <form class="reply" aria-label={`Reply in ${sessionKey}`} />;
}
