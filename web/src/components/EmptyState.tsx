export function EmptyState({ title, hint }: { title: string; hint?: string }) {
  return (
    <div className="flex h-full flex-col items-center justify-center gap-1 p-8 text-center text-muted">
      <p className="font-medium">{title}</p>
      {hint ? <p className="text-sm">{hint}</p> : null}
    </div>
  );
}
