/**
 * A folder's own menu in the navigation ("…"): rename it, delete it. Each opens its
 * dialog; when the dialog closes, focus comes back to this button (the menu item that
 * opened it is gone by then).
 */
import { Icon } from "@/components/Icon";
import * as Menu from "@radix-ui/react-dropdown-menu";
import { useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import type { MailFolder } from "@/api";
import { navigate } from "@/lib/router";
import { useFolderChanges } from "../hooks/useFolderChanges";
import { DeleteFolderDialog } from "./DeleteFolderDialog";
import { FolderNameDialog } from "./FolderNameDialog";
import { MENU_CONTENT, MENU_ITEM } from "./menuStyles";

export interface FolderActionsProps {
  folder: MailFolder;
  hasInferiors: boolean;
  /** The folder is on screen: deleting it goes to Archive, where its mail now is. */
  current: boolean;
  /** After going to Archive so (the phone's drawer closes). */
  onNavigate?: () => void;
}

export function FolderActions({ folder, hasInferiors, current, onNavigate }: FolderActionsProps) {
  const { t } = useTranslation();
  const changes = useFolderChanges();
  const trigger = useRef<HTMLButtonElement>(null);
  const [dialog, setDialog] = useState<"rename" | "delete" | null>(null);
  const close = (open: boolean) => {
    if (!open) setDialog(null);
  };
  return (
    <>
      <Menu.Root modal={false}>
        <Menu.Trigger
          ref={trigger}
          aria-label={t("folders.actions", { name: folder.name })}
          title={t("folders.actions", { name: folder.name })}
          className="inline-flex size-8 shrink-0 items-center justify-center rounded-md text-muted hover:bg-raised max-md:size-11 md:opacity-0 md:group-hover:opacity-100 md:focus-visible:opacity-100 md:data-[state=open]:opacity-100"
        >
          <Icon name="actions" />
        </Menu.Trigger>
        <Menu.Portal>
          <Menu.Content align="end" sideOffset={4} className={MENU_CONTENT}>
            <Menu.Item className={MENU_ITEM} onSelect={() => setDialog("rename")}>
              {t("folders.rename")}
            </Menu.Item>
            <Menu.Item className={MENU_ITEM} onSelect={() => setDialog("delete")}>
              {t("folders.deleteItem")}
            </Menu.Item>
          </Menu.Content>
        </Menu.Portal>
      </Menu.Root>
      <FolderNameDialog
        open={dialog === "rename"}
        onOpenChange={close}
        title={t("folders.renameTitle", { name: folder.name })}
        submitLabel={t("folders.renameSubmit")}
        initialName={folder.name}
        onSubmit={(name) => changes.rename(folder.folder_id, name)}
        returnFocus={trigger}
      />
      <DeleteFolderDialog
        open={dialog === "delete"}
        onOpenChange={close}
        folder={folder}
        hasInferiors={hasInferiors}
        onDelete={async () => {
          await changes.remove(folder.folder_id);
          if (!current) return;
          navigate("/archive");
          onNavigate?.();
        }}
        returnFocus={trigger}
      />
    </>
  );
}
