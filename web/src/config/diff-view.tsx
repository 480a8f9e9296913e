// A unified diff as the gateway made it (secrets redacted), each line marked added, removed or a
// hunk header; rendered as text, never as HTML.
export function DiffView({ diff, label }: { diff: string; label: string }) {
  const lines = diff.replace(/\n$/, '').split('\n');
  return (
    <figure class="config-diff-figure">
      <figcaption class="muted">{label}</figcaption>
      <pre class="config-diff">
        {lines.map((line, index) => (
          <span key={index} class={lineClass(line)}>
            {line}
            {'\n'}
          </span>
        ))}
      </pre>
    </figure>
  );
}

function lineClass(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---')) return 'diff-file';
  if (line.startsWith('@@')) return 'diff-hunk';
  if (line.startsWith('+')) return 'diff-add';
  if (line.startsWith('-')) return 'diff-del';
  return 'diff-same';
}
