/**
 * Deleting a folder asks first, and says what happens: its mail goes to Archive
 * (nothing is lost), and folders inside it stay, under its name (docs/imap.md).
 */
import type { RefObject } from "react";
import { useTranslation } from "react-i18next";
import type { MailFolder } from "@/api";
import { ConfirmDialog } from "@/components/ConfirmDialog";

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
  const description = [t("folders.deleteMail", { count: folder.messages }), hasInferiors ? t("folders.deleteInferiors") : ""]
    .filter(Boolean)
    .join(" ");
  return (
    <ConfirmDialog
      open={open}
      onOpenChange={onOpenChange}
      title={t("folders.deleteTitle", { name: folder.name })}
      description={description}
      action={t("folders.delete")}
      onConfirm={onDelete}
      returnFocus={returnFocus}
    />
  );
}
