/**
 * The folders in the navigation against the fake gateway: the tree from the API's
 * flat names (parents nobody made as labels), unread counts, long names cut with a
 * tooltip; New folder, rename and delete with the gateway's refusals shown.
 */
import { act, screen, waitFor, within } from "@testing-library/react";
import userEventLib from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { navigate } from "@/lib/router";
import { fakeFolderNames, seedFolders } from "@/test/fakeFolders";
import { gateway, installFakeGateway } from "@/test/fakeGateway";
import { renderUi } from "@/test/render";
import { FolderNav } from "./FolderNav";

const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: 0 });

beforeEach(() => {
  installFakeGateway();
  window.history.replaceState(null, "", "/inbox");
});
afterEach(() => vi.unstubAllGlobals());

const folderList = () => screen.getByRole("list", { name: "Folders" });
const link = (name: string) => screen.findByRole("link", { name: new RegExp(`^${name}`) });

async function openActions(name: string, label = `Folder ${name}: actions`) {
  await userEvent.click(await screen.findByRole("button", { name: label }));
  return screen.findByRole("menu");
}

/** Each row of the tree as it reads: a folder's link, or a parent's label. */
const rows = () =>
  within(folderList())
    .getAllByRole("listitem")
    .map((li) => li.querySelector(":scope > div > a, :scope > span")?.textContent);

describe("the folders in the navigation", () => {
  it("nests the flat names, with parents nobody made as labels", async () => {
    const [acme, y2026, projectsFolder] = seedFolders("Clients/Acme", "Projects/2026", "Projects", { name: "Receipts", unread: 4 });
    renderUi(<FolderNav currentFolderId={acme?.folder_id ?? null} />);
    const projects = await link("Projects");
    expect(projects).toHaveAttribute("href", `/folders/${projectsFolder?.folder_id}`);
    // Projects/2026 is inside Projects' own list item; Clients is text, not a link.
    const projectsItem = projects.closest("li") as HTMLElement;
    expect(within(projectsItem).getByRole("link", { name: /^2026/ })).toHaveAttribute("href", `/folders/${y2026?.folder_id}`);
    expect(screen.queryByRole("link", { name: /^Clients/ })).toBeNull();
    const clients = within(folderList()).getByText("Clients");
    expect(within(clients.closest("li") as HTMLElement).getByRole("link", { name: /^Acme/ })).toHaveAttribute("aria-current", "page");
    expect(rows()).toEqual(["Clients", "Acme", "Projects", "2026", "Receipts4, 4 unread"]);
    expect(await link("Receipts")).toHaveAccessibleName(/^Receipts\W*4 unread$/);
  });

  it("cuts a long name and keeps the whole of it as the tooltip", async () => {
    const long = `Projects/${"quarterly-report-".repeat(12)}final`;
    seedFolders(long);
    renderUi(<FolderNav currentFolderId={null} />);
    const leaf = await screen.findByText(long.slice("Projects/".length));
    expect(leaf).toHaveClass("truncate");
    expect(leaf).toHaveAttribute("title", long);
    expect(leaf.closest("a")).toHaveClass("min-w-0");
  });

  it("makes a folder, showing the gateway's refusal in the user's words first", async () => {
    renderUi(<FolderNav currentFolderId={null} />);
    await userEvent.click(await screen.findByRole("button", { name: "New folder" }));
    const dialog = await screen.findByRole("dialog", { name: "New folder" });
    const name = within(dialog).getByRole("textbox", { name: "Name" });
    expect(name).toHaveFocus();
    expect(within(dialog).getByRole("button", { name: "Create" })).toBeDisabled();

    await userEvent.type(name, "Trash");
    await userEvent.click(within(dialog).getByRole("button", { name: "Create" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("This is one of the gateway's own folders. Choose another name.");
    expect(name).toHaveAttribute("aria-invalid", "true");
    expect(name).toHaveAccessibleDescription(/Put \/ between levels.*This is one of the gateway's own folders/);

    await userEvent.clear(name);
    await userEvent.type(name, "Projects//2027");
    await userEvent.click(within(dialog).getByRole("button", { name: "Create" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent(
      "A folder name has no empty level (“a//b”) and no control character, “*” or “%”.",
    );

    await userEvent.clear(name);
    expect(within(dialog).queryByRole("alert")).toBeNull(); // typing again clears the refusal
    await userEvent.type(name, "Projects/2027");
    await userEvent.keyboard("{Enter}");
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(gateway.bodies["POST /api/v1/me/folders"]).toEqual({ name: "Projects/2027" });
    expect(await link("2027")).toBeInTheDocument();
    expect(within(folderList()).getByText("Projects")).toBeInTheDocument(); // its parent, never made
  });

  it("renames a folder from its menu, keyboard only", async () => {
    seedFolders("Projects", "Receipts");
    renderUi(<FolderNav currentFolderId={null} />);
    const trigger = await screen.findByRole("button", { name: "Folder Receipts: actions" });
    act(() => trigger.focus());
    await userEvent.keyboard("{Enter}");
    const menu = await screen.findByRole("menu");
    await waitFor(() => expect(within(menu).getByRole("menuitem", { name: "Rename…" })).toHaveFocus());
    await userEvent.keyboard("{Enter}");
    const dialog = await screen.findByRole("dialog", { name: "Rename “Receipts”" });
    const name = within(dialog).getByRole("textbox", { name: "Name" });
    expect(name).toHaveValue("Receipts");

    await userEvent.clear(name);
    await userEvent.type(name, "Projects{Enter}");
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("You have a folder of this name already.");

    await userEvent.clear(name);
    await userEvent.type(name, "Bills{Enter}");
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(fakeFolderNames()).toEqual(["Bills", "Projects"]);
    expect(await link("Bills")).toHaveAttribute("href", "/folders/f2"); // the same folder, by id
    expect(trigger).toHaveFocus(); // back where the keyboard was
  });

  it("moves a folder into another by renaming it", async () => {
    seedFolders("Projects", "Receipts");
    renderUi(<FolderNav currentFolderId={null} />);
    await userEvent.click(within(await openActions("Receipts")).getByRole("menuitem", { name: "Rename…" }));
    const name = within(await screen.findByRole("dialog")).getByRole("textbox", { name: "Name" });
    await userEvent.clear(name);
    await userEvent.type(name, "Projects/Receipts{Enter}");
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(rows()).toEqual(["Projects", "Receipts"]);
    expect(within((await link("Projects")).closest("li") as HTMLElement).getByRole("link", { name: /^Receipts/ })).toHaveAttribute(
      "href",
      "/folders/f2",
    );
  });

  it("deletes a folder after saying its mail goes to Archive, and leaves it for Archive", async () => {
    const [projects] = seedFolders({ name: "Projects", messages: 3 }, "Projects/2026");
    act(() => navigate(`/folders/${projects?.folder_id}`));
    renderUi(<FolderNav currentFolderId={projects?.folder_id ?? null} />);
    const menu = await openActions("Projects");
    await userEvent.click(within(menu).getByRole("menuitem", { name: "Delete…" }));
    const dialog = await screen.findByRole("dialog", { name: "Delete the folder “Projects”?" });
    expect(dialog).toHaveAccessibleDescription("Its 3 mails go to Archive: nothing is deleted. The folders inside it stay.");

    await userEvent.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(gateway.calls).not.toContain(`DELETE /api/v1/me/folders/${projects?.folder_id}`);

    await userEvent.click(within(await openActions("Projects")).getByRole("menuitem", { name: "Delete…" }));
    await userEvent.click(within(await screen.findByRole("dialog")).getByRole("button", { name: "Delete folder" }));
    await waitFor(() => expect(window.location.pathname).toBe("/archive"));
    expect(gateway.calls).toContain(`DELETE /api/v1/me/folders/${projects?.folder_id}`);
    // Its inferior stays, under a parent that is now only a name.
    await waitFor(() => expect(screen.queryByRole("link", { name: /^Projects/ })).toBeNull());
    expect(within(folderList()).getByText("Projects")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: /^2026/ })).toBeInTheDocument();
  });

  it("says a folder without mail has none", async () => {
    seedFolders("Empty");
    renderUi(<FolderNav currentFolderId={null} />);
    await userEvent.click(within(await openActions("Empty")).getByRole("menuitem", { name: "Delete…" }));
    expect(await screen.findByRole("dialog")).toHaveAccessibleDescription("It has no mail.");
  });

  it("speaks Chinese too", async () => {
    seedFolders({ name: "项目", messages: 1 });
    renderUi(<FolderNav currentFolderId={null} />, { language: "zh" });
    await userEvent.click(within(await openActions("项目", "文件夹 项目：操作")).getByRole("menuitem", { name: "删除…" }));
    expect(await screen.findByRole("dialog", { name: "删除文件夹“项目”？" })).toHaveAccessibleDescription(
      "其中的 1 封邮件将移到归档：不会删除任何邮件。",
    );
  });
});
