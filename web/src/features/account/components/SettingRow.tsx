import type { ReactNode } from "react";
import { CopyButton } from "@/components/CopyButton";

/** One setting of the mail client's (a term and its value) with a copy button. */
export function SettingRow({ term, value, copyLabel, children }: { term: string; value: string; copyLabel: string; children?: ReactNode }) {
  return (
    <div className="contents">
      <dt className="text-muted">{term}</dt>
      <dd className="flex flex-wrap items-center gap-x-2">
        <span className="font-mono break-all">{value}</span>
        <CopyButton text={value} label={copyLabel} />
        {children}
      </dd>
    </div>
  );
}
