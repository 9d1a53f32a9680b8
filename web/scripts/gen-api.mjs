// Generate src/api/schema.d.ts from the gateway's OpenAPI document.
// `--check`: regenerate in memory and fail when the committed file differs (drift).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";

const web = join(dirname(fileURLToPath(import.meta.url)), "..");
const repo = join(web, "..");
const target = join(web, "src/api/schema.d.ts");
const venvPython = join(repo, ".venv/bin/python");
const python = process.env.PYTHON ?? (existsSync(venvPython) ? venvPython : "python3");

const json = execFileSync(python, [join(repo, "scripts/openapi.py")], {
  cwd: repo,
  encoding: "utf8",
  maxBuffer: 64 * 1024 * 1024,
});
const ast = await openapiTS(JSON.parse(json), { alphabetize: true, defaultNonNullable: false });
const header =
  "// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.\n\n";
const generated = header + astToString(ast);

if (process.argv.includes("--check")) {
  const committed = existsSync(target) ? readFileSync(target, "utf8") : "";
  if (committed !== generated) {
    console.error(
      "src/api/schema.d.ts is out of date with the gateway's OpenAPI document: run `npm run gen:api` and commit it.",
    );
    process.exit(1);
  }
  console.log("src/api/schema.d.ts matches the gateway's OpenAPI document.");
} else {
  writeFileSync(target, generated);
  console.log(`wrote ${target}`);
}
