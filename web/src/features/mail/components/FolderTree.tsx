/**
 * The folders of my own in the navigation, nested as their names are: each a link to
 * its mail with its unread count and its menu; a parent that exists only as a prefix
 * (IMAP's `\Noselect`) is a plain label. Long names are cut with the whole name as
 * the tooltip, and deep levels stop moving right after a few steps, so neither widens
 * the column.
 */
import { Icon } from "@/components/Icon";
import { useTranslation } from "react-i18next";
import { CountBadge } from "@/components/CountBadge";
import { NavLink } from "@/components/NavLink";
import { routePath } from "@/lib/router";
import type { FolderNode } from "../folderTree";
import { FolderActions } from "./LazyMenus";

const INDENT = ["pl-2", "pl-5", "pl-8", "pl-11"];

export interface FolderTreeProps {
  nodes: FolderNode[];
  currentFolderId: string | null;
  onNavigate?: () => void;
  depth?: number;
  labelledBy?: string;
}

export function FolderTree({ nodes, currentFolderId, onNavigate, depth = 0, labelledBy }: FolderTreeProps) {
  return (
    <ul className="flex flex-col gap-0.5" aria-labelledby={labelledBy}>
      {nodes.map((node) => (
        // A folder by its id, which a rename keeps: its row (and a dialog open on it) stays.
        <FolderTreeItem key={node.folder?.folder_id ?? node.path} node={node} depth={depth} currentFolderId={currentFolderId} onNavigate={onNavigate} />
      ))}
    </ul>
  );
}

function FolderTreeItem({ node, depth, currentFolderId, onNavigate }: { node: FolderNode; depth: number; currentFolderId: string | null; onNavigate: (() => void) | undefined }) {
  const { t } = useTranslation();
  const { folder } = node;
  const indent = INDENT[Math.min(depth, INDENT.length - 1)];
  const current = folder !== null && folder.folder_id === currentFolderId;
  return (
    <li>
      {folder ? (
        <div className="group flex items-center gap-0.5">
          <NavLink
            href={routePath({ view: "folder", folderId: folder.folder_id, mailId: null })}
            current={current}
            onNavigate={onNavigate}
            className={`flex min-h-9 min-w-0 flex-1 items-center gap-2 rounded-md pr-2 text-sm max-md:min-h-12 max-md:text-base ${indent} ${current ? "bg-accent-soft font-medium text-accent" : "hover:bg-raised"}`}
          >
            <Icon name="folder" />
            <span className="truncate" title={node.path}>
              {node.label}
            </span>
            <CountBadge value={folder.unread} label={t("folders.unread", { count: folder.unread })} />
          </NavLink>
          <FolderActions folder={folder} hasInferiors={node.children.length > 0} current={current} onNavigate={onNavigate} />
        </div>
      ) : (
        <span className={`flex min-h-9 min-w-0 items-center gap-2 pr-2 text-sm text-muted max-md:min-h-12 max-md:text-base ${indent}`} title={node.path}>
          <Icon name="folderOpen" />
          <span className="truncate">{node.label}</span>
        </span>
      )}
      {node.children.length > 0 ? (
        <FolderTree nodes={node.children} depth={depth + 1} currentFolderId={currentFolderId} onNavigate={onNavigate} />
      ) : null}
    </li>
  );
}
