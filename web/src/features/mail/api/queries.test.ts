import type { Mail } from "@/api";
import { folderQuery, NEXT_PAGE, PAGE, type FolderPage } from "./queries";

const page = (size: number, total: number): FolderPage => ({
  mails: Array.from({ length: size }, (_, i) => ({ mail_id: `m${i}` }) as Mail),
  total,
});

describe("a folder page by page", () => {
  const next = folderQuery("inbox").getNextPageParam;

  it("asks for the next page from what is loaded while the folder has more", () => {
    const first = page(PAGE, 10_000);
    expect(next(first, [first], 0, [0])).toBe(PAGE);
    const second = page(NEXT_PAGE, 10_000);
    expect(next(second, [first, second], PAGE, [0, PAGE])).toBe(PAGE + NEXT_PAGE);
  });

  it("stops at the end, and on an empty page", () => {
    const first = page(PAGE, 250);
    const last = page(50, 250);
    expect(next(last, [first, last], PAGE, [0, PAGE])).toBeUndefined();
    const empty = page(0, 900); // mail went away meanwhile: no endless asking
    expect(next(empty, [first, empty], PAGE, [0, PAGE])).toBeUndefined();
  });
});
