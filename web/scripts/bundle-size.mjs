// Print the built bundle and fail when the initial JavaScript (what index.html
// loads before anything is lazily imported) is over the budget on the wire: as the
// gateway serves it to a browser, from the brotli copy scripts/precompress.mjs wrote.
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const LIMIT_KB = Number(process.env.BUNDLE_LIMIT_KB ?? 150);
const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const html = readFileSync(join(dist, "index.html"), "utf8");

// The entry script and its modulepreload links: everything the first paint needs.
const initial = new Set(
  [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="\/?([^"]+\.js)"/g)].map((m) => m[1]),
);
const gz = (file) => gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
const br = (file) => {
  const copy = join(dist, `${file}.br`);
  if (existsSync(copy)) return statSync(copy).size;
  const data = readFileSync(join(dist, file));
  const quality = { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY };
  return Math.min(data.length, brotliCompressSync(data, { params: quality }).length);
};
const kb = (bytes) => (bytes / 1024).toFixed(1).padStart(7);

let total = 0;
let totalGzip = 0;
console.log("bundle (brotli, gzip):");
for (const name of readdirSync(join(dist, "assets")).sort()) {
  const file = `assets/${name}`;
  if (/\.(br|gz)$/.test(name) || !statSync(join(dist, file)).isFile()) continue;
  const [size, gzipped] = [br(file), gz(file)];
  const isInitial = initial.has(file);
  if (isInitial) {
    total += size;
    totalGzip += gzipped;
  }
  console.log(`  ${kb(size)} KB ${kb(gzipped)} KB  ${file}${isInitial ? "  (initial)" : ""}`);
}
console.log(
  `initial JavaScript: ${(total / 1024).toFixed(1)} KB as brotli, ` +
    `${(totalGzip / 1024).toFixed(1)} KB gzipped (limit ${LIMIT_KB} KB on the wire)`,
);
if (initial.size === 0) {
  console.error("no entry script found in dist/index.html");
  process.exit(1);
}
if (total > LIMIT_KB * 1024) {
  console.error(`initial JavaScript is over ${LIMIT_KB} KB as brotli`);
  process.exit(1);
}
