import "@testing-library/jest-dom/vitest";
import { cleanup, configure } from "@testing-library/react";
import { afterEach, vi } from "vitest";

afterEach(() => cleanup());

// findBy / waitFor wait on a condition; on a loaded machine the first render can take
// more than the default second, so wait longer (a passing condition returns at once).
configure({ asyncUtilTimeout: 5000 });

// Warm the lazily loaded Markdown renderer, so tests do not wait on the import.
await import("@/components/MarkdownRenderer");

// jsdom lays nothing out, so the real virtualizer would render no row: every test gets
// one that renders them all, 80 px apart.
vi.mock("@tanstack/react-virtual", () => ({
  useVirtualizer: (options: { count: number; getItemKey: (i: number) => string | number }) => ({
    getVirtualItems: () =>
      Array.from({ length: options.count }, (_, index) => ({ index, key: options.getItemKey(index), start: index * 80 })),
    getTotalSize: () => options.count * 80,
    measureElement: () => {},
    scrollToIndex: () => {},
  }),
}));
