// Compress the build once, so the gateway serves each file as the client accepts it
// (api/web_ui.py): `<file>.br` (brotli, best quality) and `<file>.gz` (gzip -9) beside
// every text file of dist/ over 1 KB, where the copy is smaller than the file.
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const MIN_BYTES = 1024;
const TEXT = /\.(?:js|mjs|css|html|svg|json|txt|webmanifest|map)$/;
const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (TEXT.test(name)) yield path;
  }
}

let plain = 0;
let brotli = 0;
let count = 0;
for (const path of files(dist)) {
  const data = readFileSync(path);
  if (data.length < MIN_BYTES) continue;
  const br = brotliCompressSync(data, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
    },
  });
  const gz = gzipSync(data, { level: 9 });
  if (br.length < data.length) writeFileSync(`${path}.br`, br);
  if (gz.length < data.length) writeFileSync(`${path}.gz`, gz);
  plain += data.length;
  brotli += Math.min(br.length, data.length);
  count += 1;
}
const kb = (bytes) => (bytes / 1024).toFixed(1);
console.log(`precompressed ${count} files of ${relative(process.cwd(), dist) || "dist"}: ${kb(plain)} KB, ${kb(brotli)} KB as brotli`);
