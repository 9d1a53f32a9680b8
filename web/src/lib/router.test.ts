// @vitest-environment node
import { describe, expect, it } from "vitest";
import { parseRoute, routePath } from "./router";

describe("routes", () => {
  it.each([
    ["/", { view: "mail", folder: "inbox", mailId: null }],
    ["/inbox/abc", { view: "mail", folder: "inbox", mailId: "abc" }],
    ["/trash", { view: "mail", folder: "trash", mailId: null }],
    ["/decisions/m%2F1", { view: "decisions", mailId: "m/1" }],
    ["/conversations/s1", { view: "conversations", sessionId: "s1" }],
    ["/account", { view: "account" }],
    ["/nowhere/else", { view: "mail", folder: "inbox", mailId: null }],
  ])("%s", (path, route) => {
    expect(parseRoute(path)).toEqual(route);
  });

  it("round-trips", () => {
    for (const path of ["/inbox/abc", "/sent", "/decisions/m%2F1", "/conversations/s1", "/agents"]) {
      expect(routePath(parseRoute(path))).toBe(path);
    }
  });
});
