// The chat page (placeholder: built by its lane).
export function ChatPage() {
  return (
    <section aria-labelledby="page-title">
      <h2 id="page-title">chat</h2>
    </section>
  );
}
