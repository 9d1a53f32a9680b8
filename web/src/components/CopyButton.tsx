import { useState } from "react";
import { useTranslation } from "react-i18next";

export function CopyButton({ text, label }: { text: string; label: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="min-h-8 rounded px-2 text-xs text-accent hover:bg-raised max-md:min-h-11 max-md:min-w-11"
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(() => {
          setCopied(true);
          setTimeout(() => setCopied(false), 1500);
        });
      }}
    >
      {copied ? t("common.copied") : t("common.copy")}
      {/* A space of its own: inside the span, accessible-name code may trim it away. */}
      {" "}
      <span className="sr-only">{label}</span>
    </button>
  );
}
