/** A count beside a navigation entry (unread mail, open decisions); nothing at zero. */
export function CountBadge({ value, label }: { value: number | undefined; label: string }) {
  if (!value) return null;
  return (
    <span className="ml-auto shrink-0 rounded-full bg-accent px-2 text-xs font-semibold text-accent-ink tabular-nums">
      <span aria-hidden="true">{value}</span>
      <span className="sr-only">, {label}</span>
    </span>
  );
}
