import "@testing-library/jest-dom/vitest";
import { cleanup, configure } from "@testing-library/react";
import { afterEach, vi } from "vitest";
import i18n, { addLanguage } from "@/lib/i18n";
import zh from "@/locales/zh.json";

// Every language at hand from the start, as a page has its own once loaded: a test
// switches language without waiting.
addLanguage("zh", zh);

// Files share their worker's modules (vite.config.ts, isolate: false): after each test
// the UI is unmounted and speaks English again, as a file that starts expects.
afterEach(async () => {
  cleanup();
  if (i18n.isInitialized && i18n.language !== "en") await i18n.changeLanguage("en");
});

// findBy / waitFor wait on a condition; on a loaded machine the first render can take
// more than the default second, so wait longer (a passing condition returns at once).
configure({ asyncUtilTimeout: 5000 });

// jsdom has no ResizeObserver, with which Radix's menus measure their button.
globalThis.ResizeObserver ??= class {
  observe() {}
  unobserve() {}
  disconnect() {}
};

// Warm the lazily loaded Markdown renderer, so tests do not wait on the import.
await import("@/components/MarkdownRenderer");
// And the icons, which then render at once.
await (await import("@/components/Icon")).iconsReady;

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
