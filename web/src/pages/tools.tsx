// The tools page (placeholder: built by its lane).
export function ToolsPage() {
  return (
    <section aria-labelledby="page-title">
      <h2 id="page-title">tools</h2>
    </section>
  );
}
