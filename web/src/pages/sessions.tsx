// The sessions page (placeholder: built by its lane).
export function SessionsPage() {
  return (
    <section aria-labelledby="page-title">
      <h2 id="page-title">sessions</h2>
    </section>
  );
}
