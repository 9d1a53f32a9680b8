import type { ReactNode } from "react";

/** An empty place says so, and what to do next (`hint`, and links or buttons as children). */
export function EmptyState({ title, hint, children }: { title: string; hint?: string; children?: ReactNode }) {
  return (
    <div className="flex h-full flex-col items-center justify-center gap-1 p-8 text-center text-muted">
      <p className="font-medium">{title}</p>
      {hint ? <p className="max-w-prose text-sm">{hint}</p> : null}
      {children ? <div className="mt-2 flex flex-wrap justify-center gap-2 text-sm">{children}</div> : null}
    </div>
  );
}
