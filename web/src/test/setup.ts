import "@testing-library/jest-dom/vitest";
import { cleanup, configure } from "@testing-library/react";
import { afterEach } from "vitest";

afterEach(() => cleanup());

// findBy / waitFor wait on a condition; on a loaded machine the first render can take
// more than the default second, so wait longer (a passing condition returns at once).
configure({ asyncUtilTimeout: 5000 });

// Warm the lazily loaded Markdown renderer, so tests do not wait on the import.
await import("@/components/MarkdownRenderer");
