/**
 * Attach files (pick or drop): each uploads at once, with a progress bar. A file
 * over the gateway's limit is refused before any of it is sent, and the
 * gateway's own refusal (413) is said the same way, with the limit in MiB; a
 * failed file stays listed until removed, and the compose window does not send
 * while one is (a mail must never go without a file the person attached).
 */
import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import type { Attachment } from "@/api";
import { ApiError } from "@/api";
import { formatSize } from "@/lib/format";
import { sdk } from "@/lib/sdk";
import { formatMiB } from "../uploadLimit";

export type UploadProblem = "too_large" | "failed";

export interface Upload {
  key: string;
  name: string;
  size: number;
  progress: number;
  attachment?: Attachment;
  error?: UploadProblem;
}

const problemOf = (error: unknown): UploadProblem =>
  error instanceof ApiError && error.status === 413 ? "too_large" : "failed";

export interface AttachmentPickerProps {
  uploads: Upload[];
  onChange: (update: (all: Upload[]) => Upload[]) => void;
  /** The gateway's largest upload in bytes (`GET /me`); null while unknown. */
  maxBytes: number | null;
}

export function AttachmentPicker({ uploads, onChange, maxBytes }: AttachmentPickerProps) {
  const { t, i18n } = useTranslation();
  const id = useId();
  const [dragging, setDragging] = useState(false);
  const limit = maxBytes === null ? null : formatMiB(maxBytes, i18n.language);

  function add(files: FileList | null) {
    for (const file of Array.from(files ?? [])) {
      const key = `${file.name}-${file.size}-${Math.random().toString(36).slice(2)}`;
      const entry: Upload = { key, name: file.name, size: file.size, progress: 0 };
      if (maxBytes !== null && file.size > maxBytes) {
        onChange((all) => [...all, { ...entry, error: "too_large" }]);
        continue;
      }
      const patch = (change: Partial<Upload>) =>
        onChange((all) => all.map((u) => (u.key === key ? { ...u, ...change } : u)));
      onChange((all) => [...all, entry]);
      sdk
        .upload(file, { onProgress: (progress) => patch({ progress }) })
        .then((attachment) => patch({ attachment, progress: 1 }))
        .catch((error: unknown) => patch({ error: problemOf(error) }));
    }
  }

  function say(problem: UploadProblem): string {
    if (problem === "too_large") {
      return limit ? t("compose.attachTooLarge", { limit }) : t("compose.attachTooLargeUnknown");
    }
    return t("compose.attachFailed");
  }

  return (
    <div
      className={`flex flex-col gap-2 rounded-md border border-dashed p-2 ${dragging ? "border-accent bg-accent-soft" : "border-line"}`}
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(e) => {
        e.preventDefault();
        setDragging(false);
        add(e.dataTransfer.files);
      }}
    >
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <label htmlFor={id} className="inline-flex min-h-9 cursor-pointer items-center rounded-md border border-line px-3 hover:bg-raised max-md:min-h-11">
          {t("compose.attach")}
        </label>
        <input
          id={id}
          type="file"
          multiple
          className="sr-only"
          onChange={(e) => {
            add(e.target.files);
            e.target.value = ""; // the same file may be picked again after a removal
          }}
        />
        <span className="text-muted">
          {t("compose.dropHint")}
          {limit ? ` ${t("compose.attachLimit", { limit })}` : null}
        </span>
      </div>
      {uploads.length > 0 ? (
        <ul className="flex flex-col gap-1">
          {uploads.map((u) => (
            <li key={u.key} className="flex flex-wrap items-center gap-2 text-sm">
              <span className="max-w-60 truncate">{u.name}</span>
              <span className="text-xs text-muted">{formatSize(u.size, i18n.language)}</span>
              {u.error ? (
                <span role="alert" className="text-danger">
                  {say(u.error)}
                </span>
              ) : (
                <progress className="h-2 w-32" max={1} value={u.progress} aria-label={t("compose.uploading", { name: u.name })} />
              )}
              <button
                type="button"
                className="ml-auto min-h-8 rounded px-2 text-muted hover:bg-raised max-md:min-h-11"
                onClick={() => onChange((all) => all.filter((x) => x.key !== u.key))}
                aria-label={`${t("common.remove")} ${u.name}`}
              >
                {t("common.remove")}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
