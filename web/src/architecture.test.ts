// @vitest-environment node
/**
 * The import rule of bulletproof-react: shared code (api, components, lib)
 * imports no feature and not the app; a feature imports no other feature;
 * only the app composes features.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = __dirname;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

function imports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/(?:from\s+|import\()\s*["']([^"']+)["']/g)].map((m) => m[1] ?? "");
}

/** "features/mail", "components", "app", … for a path under src/, or an import. */
function area(path: string): string {
  const [top = "", second = ""] = path.replace(/^@\//, "").split("/");
  return top === "features" ? `features/${second}` : top;
}

function resolve(file: string, spec: string): string | null {
  if (spec.startsWith("@/")) return spec.slice(2);
  if (spec.startsWith(".")) return relative(SRC, join(file, "..", spec));
  return null;
}

const SHARED = new Set(["api", "components", "lib", "locales", "test"]);

describe("architecture", () => {
  const violations: string[] = [];
  for (const file of files(SRC)) {
    const from = area(relative(SRC, file));
    for (const spec of imports(file)) {
      const target = resolve(file, spec);
      if (target === null) continue;
      const to = area(target);
      if (to === from) continue;
      const bad =
        (SHARED.has(from) && (to === "app" || to.startsWith("features/"))) ||
        (from.startsWith("features/") && (to === "app" || to.startsWith("features/")));
      if (bad) violations.push(`${relative(SRC, file)} imports ${spec}`);
    }
  }

  it("keeps shared code and features independent", () => {
    expect(violations).toEqual([]);
  });
});
