/**
 * Deleting a folder asks first, and says what happens: its mail goes to Archive
 * (nothing is lost), and folders inside it stay, under its name (docs/imap.md).
 */
import { useMutation } from "@tanstack/react-query";
import type { RefObject } from "react";
import { useTranslation } from "react-i18next";
import type { MailFolder } from "@/api";
import { Button } from "@/components/Button";
import { ErrorNote } from "@/components/ErrorNote";
import { Modal } from "@/components/Modal";

export interface DeleteFolderDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  folder: MailFolder;
  hasInferiors: boolean;
  onDelete: () => Promise<unknown>;
  returnFocus?: RefObject<HTMLElement | null>;
}

export function DeleteFolderDialog({ open, onOpenChange, folder, hasInferiors, onDelete, returnFocus }: DeleteFolderDialogProps) {
  const { t } = useTranslation();
  const remove = useMutation({ mutationFn: onDelete, onSuccess: () => onOpenChange(false) });
  const description = [t("folders.deleteMail", { count: folder.messages }), hasInferiors ? t("folders.deleteInferiors") : ""]
    .filter(Boolean)
    .join(" ");
  return (
    <Modal
      open={open}
      onOpenChange={(next) => {
        if (!next) remove.reset();
        onOpenChange(next);
      }}
      title={t("folders.deleteTitle", { name: folder.name })}
      description={description}
      returnFocus={returnFocus}
    >
      <div className="flex flex-col gap-3">
        <ErrorNote error={remove.error} />
        <div className="flex justify-end gap-2">
          <Button onClick={() => onOpenChange(false)}>{t("common.cancel")}</Button>
          <Button variant="danger" disabled={remove.isPending} onClick={() => remove.mutate()}>
            {t("folders.delete")}
          </Button>
        </div>
      </div>
    </Modal>
  );
}
