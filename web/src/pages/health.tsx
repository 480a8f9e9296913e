// The health page (placeholder: built by its lane).
export function HealthPage() {
  return (
    <section aria-labelledby="page-title">
      <h2 id="page-title">health</h2>
    </section>
  );
}
