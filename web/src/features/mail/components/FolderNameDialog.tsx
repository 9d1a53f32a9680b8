/**
 * A folder's name, new or changed: one field, levels separated by `/`. The gateway
 * is the judge of a name (docs/api.md, "Folders"): its refusal — the name is taken,
 * has an empty level or a `*`, the 1,000 folders are reached — is shown under the
 * field, said from the inputs it names, and the dialog stays open to try again.
 */
import { useMutation } from "@tanstack/react-query";
import { useId, useState, type RefObject } from "react";
import { useTranslation } from "react-i18next";
import { limits } from "@/api";
import { Button } from "@/components/Button";
import { ErrorNote } from "@/components/ErrorNote";
import { LengthCount, nearLimit } from "@/components/LengthCount";
import { Modal } from "@/components/Modal";
import { fieldText, type ErrorWords } from "@/lib/errorText";

/** The API's bound on a name (the gateway checks the rest). */
const MAX_NAME = limits.schemas.FolderName.name.maxLength;

export interface FolderNameDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  submitLabel: string;
  initialName?: string;
  onSubmit: (name: string) => Promise<unknown>;
  returnFocus?: RefObject<HTMLElement | null>;
}

export function FolderNameDialog({ open, onOpenChange, title, submitLabel, initialName = "", onSubmit, returnFocus }: FolderNameDialogProps) {
  return (
    <Modal open={open} onOpenChange={onOpenChange} title={title} returnFocus={returnFocus}>
      {/* Mounted while open only: every opening starts from the name it was given. */}
      <NameForm submitLabel={submitLabel} initialName={initialName} onSubmit={onSubmit} onDone={() => onOpenChange(false)} />
    </Modal>
  );
}

interface NameFormProps {
  submitLabel: string;
  initialName: string;
  onSubmit: (name: string) => Promise<unknown>;
  onDone: () => void;
}

function NameForm({ submitLabel, initialName, onSubmit, onDone }: NameFormProps) {
  const { t } = useTranslation();
  const words: ErrorWords = {
    codes: { limit_reached: t("errors.specific.folderLimits") },
    fields: {
      "name.format": () => t("errors.specific.folderNameFormat"),
      // The whole name's bound is the input's; the gateway's other is a level's.
      "name.too_long": (problem) => (problem.limit === MAX_NAME ? fieldText(problem, t) : t("errors.specific.folderNameLevel", { limit: problem.limit })),
      "name.reserved": () => t("errors.specific.folderNameReserved"),
      "name.taken": () => t("errors.specific.folderNameTaken"),
      "name.invalid": () => t("errors.specific.folderInsideItself"),
    },
  };
  const id = useId();
  const [name, setName] = useState(initialName);
  const save = useMutation({ mutationFn: onSubmit, onSuccess: onDone });
  const unchanged = name.trim() === "" || name === initialName;
  return (
    <form
      className="flex flex-col gap-3"
      onSubmit={(event) => {
        event.preventDefault();
        if (!unchanged) save.mutate(name);
      }}
    >
      <div className="flex flex-col gap-1">
        <label htmlFor={id} className="text-sm font-medium">
          {t("folders.name")}
        </label>
        <input
          id={id}
          value={name}
          onChange={(event) => {
            setName(event.target.value);
            save.reset();
          }}
          maxLength={MAX_NAME}
          autoComplete="off"
          autoFocus
          spellCheck={false}
          aria-invalid={save.isError || undefined}
          aria-describedby={`${id}-hint${nearLimit(name.length, MAX_NAME) ? ` ${id}-count` : ""}${save.isError ? ` ${id}-error` : ""}`}
          className="min-h-10 rounded-md border border-line bg-canvas px-2 text-sm max-md:min-h-11"
        />
        <p id={`${id}-hint`} className="text-xs text-muted">
          {t("folders.nameHint")}
        </p>
        <LengthCount id={`${id}-count`} length={name.length} max={MAX_NAME} />
        <ErrorNote error={save.error} id={`${id}-error`} words={words} />
      </div>
      <div className="flex justify-end gap-2">
        <Button onClick={onDone}>{t("common.cancel")}</Button>
        <Button type="submit" variant="primary" disabled={unchanged || save.isPending}>
          {submitLabel}
        </Button>
      </div>
    </form>
  );
}
