// Generate src/api/schema.d.ts (and src/api/schema/*.d.ts) from the gateway's OpenAPI document.
// `--check`: regenerate in memory and fail when the committed file differs (drift).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";

const web = join(dirname(fileURLToPath(import.meta.url)), "..");
const repo = join(web, "..");
const venvPython = join(repo, ".venv/bin/python");
const python = process.env.PYTHON ?? (existsSync(venvPython) ? venvPython : "python3");

const json = execFileSync(python, [join(repo, "scripts/openapi.py")], {
  cwd: repo,
  encoding: "utf8",
  maxBuffer: 64 * 1024 * 1024,
});
const ast = await openapiTS(JSON.parse(json), { alphabetize: true, defaultNonNullable: false });
const header =
  "// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.\n";
const generated = astToString(ast);

// One file per idea: the URL table (paths), the shapes (components), the calls
// (operations); src/api/schema.d.ts re-exports them for `import … from "./schema"`.
const PARTS = { paths: ["components", "operations"], components: [], operations: ["components"] };
function part(name) {
  const start = generated.indexOf(`export interface ${name} {`);
  if (start < 0) throw new Error(`the generated schema has no ${name}`);
  const end = generated.indexOf("\n}\n", start) + 3;
  const imports = PARTS[name].map((other) => `import type { ${other} } from "./${other}";\n`);
  return `${header}${imports.join("")}\n${generated.slice(start, end)}`;
}
const files = Object.fromEntries(
  Object.keys(PARTS).map((name) => [join(web, `src/api/schema/${name}.d.ts`), part(name)]),
);
files[join(web, "src/api/schema.d.ts")] =
  `${header}\n` +
  Object.keys(PARTS).map((name) => `export type { ${name} } from "./schema/${name}";\n`).join("");

if (process.argv.includes("--check")) {
  const stale = Object.entries(files).filter(
    ([path, text]) => (existsSync(path) ? readFileSync(path, "utf8") : "") !== text,
  );
  if (stale.length) {
    console.error(
      `${stale.map(([path]) => path).join(", ")} out of date with the gateway's OpenAPI document: run \`npm run gen:api\` and commit.`,
    );
    process.exit(1);
  }
  console.log("src/api/schema matches the gateway's OpenAPI document.");
} else {
  mkdirSync(join(web, "src/api/schema"), { recursive: true });
  for (const [path, text] of Object.entries(files)) writeFileSync(path, text);
  console.log(`wrote ${Object.keys(files).length} files under src/api/schema`);
}
