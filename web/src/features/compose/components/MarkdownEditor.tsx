/** The body in Markdown, with a Write / Preview switch (the preview is the reader's renderer). */
import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { Markdown } from "@/components/Markdown";

export function MarkdownEditor({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const { t } = useTranslation();
  const id = useId();
  const [preview, setPreview] = useState(false);
  const tab = (on: boolean, label: string) => (
    <button
      type="button"
      aria-pressed={preview === on}
      onClick={() => setPreview(on)}
      className={`min-h-8 rounded px-3 text-sm max-md:min-h-11 ${preview === on ? "bg-accent-soft text-accent" : "text-muted hover:bg-raised"}`}
    >
      {label}
    </button>
  );
  return (
    <div className="flex flex-col gap-1">
      <div className="flex items-center justify-between">
        <label htmlFor={id} className="text-sm font-medium">
          {t("compose.body")}
        </label>
        <div role="group" aria-label={t("compose.bodyMode")} className="flex gap-1">
          {tab(false, t("compose.write"))}
          {tab(true, t("compose.preview"))}
        </div>
      </div>
      {preview ? (
        <div className="min-h-48 rounded-md border border-line bg-canvas p-3" aria-live="polite">
          <Markdown text={value || t("compose.nothingToPreview")} />
        </div>
      ) : (
        <textarea
          id={id}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          rows={10}
          className="min-h-48 rounded-md border border-line bg-canvas p-2 font-mono text-sm"
        />
      )}
    </div>
  );
}
