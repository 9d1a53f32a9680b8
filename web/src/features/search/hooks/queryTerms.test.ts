// @vitest-environment node
import { describe, expect, it } from "vitest";
import type { SearchResults } from "@/api";
import { nextOffset, SEARCH_PAGE } from "../api/queries";
import { queryTerms, splitMatches } from "./queryTerms";

describe("queryTerms", () => {
  it("keeps words and phrases, drops filters", () => {
    expect(queryTerms('from:bob is:unread "deploy failed" 登录 /srv/app alias:"my task"')).toEqual([
      "deploy failed", "登录", "/srv/app",
    ]);
    expect(queryTerms('  "unclosed phrase')).toEqual(["unclosed phrase"]);
    expect(queryTerms("")).toEqual([]);
  });
});

describe("splitMatches", () => {
  it("marks every occurrence, case-insensitively", () => {
    expect(splitMatches("Deploy: the deploy failed", ["deploy"])).toEqual([
      { text: "Deploy", match: true },
      { text: ": the ", match: false },
      { text: "deploy", match: true },
      { text: " failed", match: false },
    ]);
  });

  it("marks Chinese and paths, and leaves text without terms whole", () => {
    expect(splitMatches("修复登录问题", ["登录"]).filter((p) => p.match)).toEqual([{ text: "登录", match: true }]);
    expect(splitMatches("in /srv/app/main.py", ["/srv/app"])[1]).toEqual({ text: "/srv/app", match: true });
    expect(splitMatches("nothing", [])).toEqual([{ text: "nothing", match: false }]);
  });
});

describe("nextOffset", () => {
  const page = (n: number, total: number, exact = true): SearchResults => ({
    mails: Array.from({ length: n }, () => ({}) as SearchResults["mails"][number]),
    total,
    total_exact: exact,
  });

  it("goes on while pages are full and the total is not reached", () => {
    const first = page(SEARCH_PAGE, 45);
    expect(nextOffset(first, [first])).toBe(SEARCH_PAGE);
    const second = page(15, 45);
    expect(nextOffset(second, [first, second])).toBeUndefined();
  });

  it("stops at an exact total even on a full page", () => {
    const first = page(SEARCH_PAGE, SEARCH_PAGE);
    expect(nextOffset(first, [first])).toBeUndefined();
  });

  it("goes past a capped count (1,000+) while pages are full", () => {
    const pages = Array.from({ length: 34 }, () => page(SEARCH_PAGE, 1000, false));
    expect(nextOffset(pages[33] as SearchResults, pages)).toBe(34 * SEARCH_PAGE);
  });
});
