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
// paths and operations are long, so each is cut again by the routes' OpenAPI tag:
// schema/paths/<tag>.d.ts and schema/operations/<tag>.d.ts, joined by `extends`.
const document = JSON.parse(json);
const PARTS = { paths: ["components", "operations"], components: [], operations: ["components"] };
const identifier = (tag) => tag.replace(/[^A-Za-z0-9]+/g, "_");
const tagOf = { paths: {}, operations: {} };
for (const [path, item] of Object.entries(document.paths)) {
  for (const operation of Object.values(item)) {
    if (!operation || typeof operation !== "object" || !operation.operationId) continue;
    const tag = identifier(operation.tags?.[0] ?? "other");
    tagOf.operations[operation.operationId] = tag;
    tagOf.paths[path] ??= tag;
  }
}
function body(name) {
  const start = generated.indexOf(`export interface ${name} {`);
  if (start < 0) throw new Error(`the generated schema has no ${name}`);
  const end = generated.indexOf("\n}\n", start);
  return generated.slice(generated.indexOf("\n", start) + 1, end + 1);
}
/** The interface's members (4-space indented `key: {` … `};`), grouped by tag. */
function byTag(name) {
  const groups = {};
  let key = null;
  for (const line of body(name).split(/(?<=\n)/)) {
    const opening = /^ {4}("[^"]+"|[A-Za-z0-9_]+): \{$/.exec(line.trimEnd());
    if (opening) key = opening[1].replace(/^"|"$/g, "");
    if (key === null) throw new Error(`${name}: a line outside any member: ${line}`);
    const tag = tagOf[name][key] ?? "other";
    groups[tag] = (groups[tag] ?? "") + line;
  }
  return groups;
}
const importsOf = (name, prefix) =>
  PARTS[name].map((other) => `import type { ${other} } from "${prefix}${other}";\n`).join("");
const files = {};
files[join(web, "src/api/schema/components.d.ts")] =
  `${header}\nexport interface components {\n${body("components")}}\n`;
for (const name of ["paths", "operations"]) {
  const groups = byTag(name);
  const tags = Object.keys(groups).sort();
  for (const tag of tags) {
    files[join(web, `src/api/schema/${name}/${tag}.d.ts`)] =
      `${header}${importsOf(name, "../")}\nexport interface ${name}_${tag} {\n${groups[tag]}}\n`;
  }
  files[join(web, `src/api/schema/${name}.d.ts`)] =
    `${header}${tags.map((tag) => `import type { ${name}_${tag} } from "./${name}/${tag}";\n`).join("")}` +
    `\nexport interface ${name}\n    extends ${tags.map((tag) => `${name}_${tag}`).join(",\n        ")} {}\n`;
}
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
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  console.log(`wrote ${Object.keys(files).length} files under src/api/schema`);
}
