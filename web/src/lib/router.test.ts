// @vitest-environment node
import { describe, expect, it } from "vitest";
import { mailboxPath, parseRoute, routePath } from "./router";

describe("routes", () => {
  it.each([
    ["/", { view: "queue" }],
    ["/inbox", { view: "mail", folder: "inbox", mailId: null }],
    ["/inbox/abc", { view: "mail", folder: "inbox", mailId: "abc" }],
    ["/trash", { view: "mail", folder: "trash", mailId: null }],
    ["/decisions/m%2F1", { view: "decisions", mailId: "m/1" }],
    ["/conversations/s1", { view: "conversations", sessionId: "s1" }],
    ["/account", { view: "account" }],
    ["/folders/f1", { view: "folder", folderId: "f1", mailId: null }],
    ["/folders/f1/m%2F1", { view: "folder", folderId: "f1", mailId: "m/1" }],
    ["/folders", { view: "mail", folder: "inbox", mailId: null }],
    ["/nowhere/else", { view: "mail", folder: "inbox", mailId: null }],
  ])("%s", (path, route) => {
    expect(parseRoute(path)).toEqual(route);
  });

  it("round-trips", () => {
    for (const path of ["/inbox/abc", "/sent", "/decisions/m%2F1", "/conversations/s1", "/agents", "/agents/builder", "/folders/f1", "/folders/f1/m%2F1"]) {
      expect(routePath(parseRoute(path))).toBe(path);
    }
  });

  it("gives a mailbox's path, with or without a mail", () => {
    expect(mailboxPath("archive")).toBe("/archive");
    expect(mailboxPath({ folderId: "f1" }, "m1")).toBe("/folders/f1/m1");
  });
});
