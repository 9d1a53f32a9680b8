import type { ListedMail } from "@/api";
import { folderQuery, NEXT_PAGE, PAGE, type FolderPage } from "./queries";

const page = (size: number, hasMore: boolean): FolderPage => ({
  mails: Array.from({ length: size }, (_, i) => ({ mail_id: `m${i}` }) as ListedMail),
  hasMore,
});

describe("a folder page by page", () => {
  const next = folderQuery("inbox").getNextPageParam;

  it("asks for the next page from what is loaded while the gateway says more follow", () => {
    const first = page(PAGE, true);
    expect(next(first, [first], 0, [0])).toBe(PAGE);
    const second = page(NEXT_PAGE, true);
    expect(next(second, [first, second], PAGE, [0, PAGE])).toBe(PAGE + NEXT_PAGE);
  });

  it("stops at the end", () => {
    const first = page(PAGE, true);
    const last = page(20, false);
    expect(next(last, [first, last], PAGE, [0, PAGE])).toBeUndefined();
    const empty = page(0, false); // mail went away meanwhile: no endless asking
    expect(next(empty, [first, empty], PAGE, [0, PAGE])).toBeUndefined();
  });

  it("loads 50 rows first", () => {
    expect(PAGE).toBe(50);
  });
});
