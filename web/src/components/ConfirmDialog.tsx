/**
 * Asks before something that cannot be undone (deleting a folder, removing an address,
 * a webhook): a dialog with the consequence, Cancel, and the action; a refusal stays
 * in the dialog.
 */
import { useMutation } from "@tanstack/react-query";
import type { RefObject } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "./Button";
import { ErrorNote } from "./ErrorNote";
import { Modal } from "./Modal";

export interface ConfirmDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description: string;
  action: string;
  onConfirm: () => Promise<unknown>;
  returnFocus?: RefObject<HTMLElement | null>;
}

export function ConfirmDialog({ open, onOpenChange, title, description, action, onConfirm, returnFocus }: ConfirmDialogProps) {
  const { t } = useTranslation();
  const run = useMutation({ mutationFn: onConfirm, onSuccess: () => onOpenChange(false) });
  return (
    <Modal
      open={open}
      onOpenChange={(next) => {
        if (!next) run.reset();
        onOpenChange(next);
      }}
      title={title}
      description={description}
      returnFocus={returnFocus}
    >
      <div className="flex flex-col gap-3">
        <ErrorNote error={run.error} />
        <div className="flex justify-end gap-2">
          <Button onClick={() => onOpenChange(false)}>{t("common.cancel")}</Button>
          <Button variant="danger" disabled={run.isPending} onClick={() => run.mutate()}>
            {action}
          </Button>
        </div>
      </div>
    </Modal>
  );
}
