/**
 * "Folders" in the navigation: the folders of my own as a tree, whoever made them
 * (this page, another tab, an IMAP client: the list polls, foldersQuery), and
 * "New folder".
 */
import { useQuery } from "@tanstack/react-query";
import { useId, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { ErrorNote } from "@/components/ErrorNote";
import { foldersQuery } from "../api/queries";
import { folderTree } from "../folderTree";
import { useFolderChanges } from "../hooks/useFolderChanges";
import { FolderNameDialog } from "./FolderNameDialog";
import { FolderTree } from "./FolderTree";

export interface FolderNavProps {
  currentFolderId: string | null;
  /** After a folder is opened from the list (the phone's drawer closes). */
  onNavigate?: () => void;
}

export function FolderNav({ currentFolderId, onNavigate }: FolderNavProps) {
  const { t } = useTranslation();
  const labelId = useId();
  const folders = useQuery(foldersQuery());
  const nodes = useMemo(() => folderTree(folders.data ?? []), [folders.data]);
  const changes = useFolderChanges();
  const [creating, setCreating] = useState(false);
  return (
    <div className="flex flex-col gap-0.5">
      <div className="flex items-center justify-between gap-2 pt-3 pl-2">
        <p id={labelId} className="text-xs font-semibold tracking-wide text-muted uppercase">
          {t("nav.folders")}
        </p>
        <button
          type="button"
          onClick={() => setCreating(true)}
          aria-haspopup="dialog"
          aria-label={t("folders.new")}
          title={t("folders.new")}
          className="inline-flex size-8 items-center justify-center rounded-md text-muted hover:bg-raised max-md:size-11"
        >
          <span aria-hidden="true">+</span>
        </button>
      </div>
      {folders.isError && !folders.data ? <ErrorNote error={folders.error} /> : null}
      {nodes.length > 0 ? <FolderTree nodes={nodes} currentFolderId={currentFolderId} onNavigate={onNavigate} labelledBy={labelId} /> : null}
      <FolderNameDialog
        open={creating}
        onOpenChange={setCreating}
        title={t("folders.newTitle")}
        submitLabel={t("folders.create")}
        onSubmit={changes.create}
      />
    </div>
  );
}
