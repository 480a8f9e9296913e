// The session page (placeholder: built by its lane).
export function SessionPage({ sessionKey }: { sessionKey: string }) {
  return (
    <section aria-labelledby="page-title">
      <h2 id="page-title">{sessionKey}</h2>
    </section>
  );
}
