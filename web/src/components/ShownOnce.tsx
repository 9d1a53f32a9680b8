/** A secret the gateway shows this once (a key, a webhook's signing secret), with a copy button. */
import { CopyButton } from "./CopyButton";

export function ShownOnce({ value, note, label }: { value: string; note: string; label: string }) {
  return (
    <div role="status" className="flex flex-col gap-1 rounded-md border border-warn bg-warn-soft p-3 text-sm">
      <p>{note}</p>
      <p className="flex flex-wrap items-center gap-2">
        <code className="min-w-0 font-mono break-all">{value}</code>
        <CopyButton text={value} label={label} />
      </p>
    </div>
  );
}
