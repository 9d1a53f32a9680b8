import "@testing-library/jest-dom/vitest";
import { cleanup } from "@testing-library/react";
import { afterEach } from "vitest";

afterEach(() => cleanup());

// Warm the lazily loaded Markdown renderer, so tests do not wait on the import.
await import("@/components/MarkdownRenderer");
