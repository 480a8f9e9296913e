// The approvals page (placeholder: built by its lane).
export function ApprovalsPage() {
  return (
    <section aria-labelledby="page-title">
      <h2 id="page-title">approvals</h2>
    </section>
  );
}
