// Generate src/api/schema.d.ts (and src/api/schema/**/*.d.ts) from the gateway's OpenAPI document.
// `--check`: regenerate in memory and fail when a committed file differs (drift) or is left over.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";
import { HEADER, schemaFiles, interfaceFiles, indexFile } from "./api-files.mjs";
import { limitsFile } from "./limits-file.mjs";

const web = join(dirname(fileURLToPath(import.meta.url)), "..");
const repo = join(web, "..");
const venvPython = join(repo, ".venv/bin/python");
const python = process.env.PYTHON ?? (existsSync(venvPython) ? venvPython : "python3");

const json = execFileSync(python, [join(repo, "scripts/openapi.py")], {
  cwd: repo,
  encoding: "utf8",
  maxBuffer: 64 * 1024 * 1024,
});
const document = JSON.parse(json);
const ast = await openapiTS(document, { alphabetize: true, defaultNonNullable: false });
const generated = astToString(ast);

// One file per idea: the URL table (paths), the shapes (components), the calls
// (operations); src/api/schema.d.ts re-exports them for `import … from "./schema"`.
// Each is cut again (see api-files.mjs) so that no file is much over 300 lines.
const root = join(web, "src/api/schema");
const files = {
  ...schemaFiles(document, generated),
  ...interfaceFiles(document, generated, "paths"),
  ...interfaceFiles(document, generated, "operations"),
  "../schema.d.ts": indexFile(),
  "limits.ts": limitsFile(document, HEADER),
};
const wanted = Object.fromEntries(
  Object.entries(files).map(([name, text]) => [join(root, name), text]),
);

/** Every .d.ts file under src/api/schema now, to find the ones no longer generated. */
function existing(folder) {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? existing(join(folder, entry.name))
      : entry.name.endsWith(".d.ts")
        ? [join(folder, entry.name)]
        : [],
  );
}
const leftOver = existing(root).filter((path) => !(path in wanted));

if (process.argv.includes("--check")) {
  const stale = Object.entries(wanted)
    .filter(([path, text]) => (existsSync(path) ? readFileSync(path, "utf8") : "") !== text)
    .map(([path]) => path)
    .concat(leftOver);
  if (stale.length) {
    console.error(
      `${stale.map((path) => relative(web, path)).join(", ")} out of date with the gateway's OpenAPI document: run \`npm run gen:api\` and commit.`,
    );
    process.exit(1);
  }
  console.log("src/api/schema matches the gateway's OpenAPI document.");
} else {
  for (const path of leftOver) rmSync(path);
  for (const [path, text] of Object.entries(wanted)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  console.log(`wrote ${Object.keys(wanted).length} files under src/api/schema`);
}
