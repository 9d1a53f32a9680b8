/** A dialog on Radix's primitive: focus trap, Escape, aria wiring come with it. */
import { Icon } from "./Icon";
import * as Dialog from "@radix-ui/react-dialog";
import type { ReactNode, RefObject } from "react";
import { useTranslation } from "react-i18next";

export interface ModalProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description?: string;
  children: ReactNode;
  wide?: boolean;
  /** Where focus goes when the dialog closes, when not to what had it before: a dialog
   * opened from a menu item, which is gone by then. */
  returnFocus?: RefObject<HTMLElement | null>;
}

export function Modal({ open, onOpenChange, title, description, children, wide, returnFocus }: ModalProps) {
  const { t } = useTranslation();
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
        <Dialog.Content
          onCloseAutoFocus={(event) => {
            if (!returnFocus?.current) return;
            event.preventDefault();
            returnFocus.current.focus();
          }}
          className={`fixed inset-x-0 bottom-0 z-50 max-h-[100dvh] overflow-y-auto rounded-t-xl border border-line bg-surface p-4 shadow-xl md:inset-auto md:top-1/2 md:left-1/2 md:w-full md:-translate-x-1/2 md:-translate-y-1/2 md:rounded-xl ${wide ? "md:max-w-3xl" : "md:max-w-lg"}`}
        >
          {/* Sticky, as the padding it sits in: a long drawer (many folders) scrolls under it. */}
          <div className="sticky -top-4 z-10 -mx-4 -mt-4 mb-3 flex items-center justify-between gap-2 bg-surface px-4 pt-4 pb-1">
            <Dialog.Title className="min-w-0 text-lg font-semibold break-words">{title}</Dialog.Title>
            <Dialog.Close
              className="inline-flex min-h-9 min-w-9 items-center justify-center rounded-md text-muted hover:bg-raised max-md:min-h-11 max-md:min-w-11"
              aria-label={t("common.close")}
            >
              <Icon name="close" className="size-5" />
            </Dialog.Close>
          </div>
          {description ? (
            <Dialog.Description className="mb-3 text-sm text-muted">{description}</Dialog.Description>
          ) : (
            <Dialog.Description className="sr-only">{title}</Dialog.Description>
          )}
          {children}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
