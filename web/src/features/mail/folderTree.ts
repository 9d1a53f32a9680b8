/**
 * The folders of a person's own as a tree: the API lists them flat, by their whole
 * name, with `/` between levels (docs/api.md, "Folders"). A folder's parents need
 * not exist (an IMAP client may CREATE `Projects/2026` alone, or DELETE the parent
 * of folders): such a parent is a node without a folder, IMAP's `\Noselect`.
 */
import type { MailFolder } from "@/api";

export const FOLDER_DELIMITER = "/";

export interface FolderNode {
  /** The last level of the name: what the tree shows. */
  label: string;
  /** The whole name, `Projects/2026`. */
  path: string;
  /** Null for a parent that is only the prefix of its inferiors. */
  folder: MailFolder | null;
  children: FolderNode[];
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
const byLabel = (a: FolderNode, b: FolderNode) =>
  collator.compare(a.label, b.label) || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0);

function sorted(nodes: FolderNode[]): FolderNode[] {
  nodes.sort(byLabel);
  for (const node of nodes) sorted(node.children);
  return nodes;
}

/** The tree of `folders`, each level in a person's order (`2` before `10`, case aside). */
export function folderTree(folders: readonly MailFolder[]): FolderNode[] {
  const roots: FolderNode[] = [];
  const byPath = new Map<string, FolderNode>();
  const nodeAt = (path: string): FolderNode => {
    const known = byPath.get(path);
    if (known) return known;
    const cut = path.lastIndexOf(FOLDER_DELIMITER);
    const node: FolderNode = { label: path.slice(cut + 1), path, folder: null, children: [] };
    byPath.set(path, node);
    (cut < 0 ? roots : nodeAt(path.slice(0, cut)).children).push(node);
    return node;
  };
  for (const folder of folders) nodeAt(folder.name).folder = folder;
  return sorted(roots);
}

/** The tree depth first, each node with its depth (0 at the top): a menu's rows. */
export function flatFolderTree(nodes: readonly FolderNode[], depth = 0): { node: FolderNode; depth: number }[] {
  return nodes.flatMap((node) => [{ node, depth }, ...flatFolderTree(node.children, depth + 1)]);
}
