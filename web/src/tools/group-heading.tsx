// A heading that opens and closes the group under it (the Tools page's toolpacks and its per-tool
// status): a button inside the heading, so the heading's text stays the group's name.

/** A phone (tools.css's breakpoint): the Tools page opens its groups one at a time there. */
export const isNarrow = () => window.matchMedia('(max-width: 40rem)').matches;

export function GroupHeading({
  id,
  bodyId,
  open,
  onToggle,
  children,
}: {
  id: string;
  /** The id of the element the heading opens and closes. */
  bodyId: string;
  open: boolean;
  onToggle(): void;
  children: string;
}) {
  return (
    <h3 id={id}>
      <button
        type="button"
        class="group-toggle"
        aria-expanded={open}
        aria-controls={bodyId}
        onClick={onToggle}
      >
        {children}
      </button>
    </h3>
  );
}
