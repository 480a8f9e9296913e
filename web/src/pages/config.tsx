// The config page (placeholder: built by its lane).
export function ConfigPage() {
  return (
    <section aria-labelledby="page-title">
      <h2 id="page-title">config</h2>
    </section>
  );
}
