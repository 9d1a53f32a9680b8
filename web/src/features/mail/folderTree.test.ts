// @vitest-environment node
import type { MailFolder } from "@/api";
import { flatFolderTree, folderTree, type FolderNode } from "./folderTree";

const folder = (name: string, unread = 0): MailFolder => ({ folder_id: `id-${name}`, name, messages: unread, unread });

/** A tree as "label" or "label(placeholder)" with children in brackets, to compare at a glance. */
const shape = (nodes: FolderNode[]): unknown[] =>
  nodes.map((n) => {
    const label = n.folder ? n.label : `${n.label}(placeholder)`;
    return n.children.length ? { [label]: shape(n.children) } : label;
  });

describe("the folder tree from flat names", () => {
  it("nests by `/`, in a person's order at each level", () => {
    const tree = folderTree(["Projects/2026", "receipts", "Projects", "Projects/10", "Projects/2", "Archive-old"].map((n) => folder(n)));
    expect(shape(tree)).toEqual(["Archive-old", { Projects: ["2", "10", "2026"] }, "receipts"]);
  });

  it("keeps each node's whole name and its folder", () => {
    const [projects] = folderTree([folder("Projects", 3), folder("Projects/2026", 1)]);
    expect(projects?.path).toBe("Projects");
    expect(projects?.folder?.unread).toBe(3);
    expect(projects?.children[0]).toMatchObject({ label: "2026", path: "Projects/2026", folder: { unread: 1 } });
  });

  it("makes the parents an IMAP client never created, without a folder", () => {
    const tree = folderTree([folder("a/b/c"), folder("a/x")]);
    expect(shape(tree)).toEqual([{ "a(placeholder)": [{ "b(placeholder)": ["c"] }, "x"] }]);
    expect(tree[0]?.children[0]?.path).toBe("a/b");
  });

  it("is the same whatever order the folders come in", () => {
    const names = ["z/1", "a", "z", "m/n/o", "M"];
    const once = shape(folderTree(names.map((n) => folder(n))));
    expect(shape(folderTree([...names].reverse().map((n) => folder(n))))).toEqual(once);
  });

  it("is empty without folders", () => {
    expect(folderTree([])).toEqual([]);
  });

  it("flattens depth first with each depth, for a menu", () => {
    const rows = flatFolderTree(folderTree(["b", "a/y", "a/x/deep"].map((n) => folder(n))));
    expect(rows.map(({ node, depth }) => `${depth}:${node.path}`)).toEqual(["0:a", "1:a/x", "2:a/x/deep", "1:a/y", "0:b"]);
  });
});
