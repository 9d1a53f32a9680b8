/// <reference types="vitest/config" />
import { fileURLToPath, URL } from "node:url";
import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import { defineConfig, loadEnv } from "vite";

export default defineConfig(({ mode }) => {
  const env = loadEnv(mode, process.cwd(), "VITE_");
  const target = env.VITE_API_BASE || "http://127.0.0.1:8180";
  return {
    plugins: [react(), tailwindcss()],
    resolve: {
      alias: {
        "@": fileURLToPath(new URL("./src", import.meta.url)),
        // Radix's scroll lock through CSSOM, not a <style> element the CSP blocks.
        "react-style-singleton": fileURLToPath(new URL("./src/lib/cspStyleSingleton.ts", import.meta.url)),
      },
    },
    server: {
      proxy: { "/api": { target, changeOrigin: false } },
    },
    build: {
      target: "es2022",
      // No inline module preload polyfill: the CSP will forbid inline scripts.
      modulePreload: { polyfill: false },
    },
    test: {
      environment: "jsdom",
      globals: true,
      setupFiles: ["./src/test/setup.ts"],
      css: false,
      // Test files share their worker's jsdom instead of each making its own: a fresh
      // environment and setup per file were two thirds of the run (78 s → 25 s on 2 cores).
      // setup.ts unmounts after every test and replaces the virtualizer for every file
      // (a module one file mocked would leak into the next); check the files pass in
      // any order, all in one worker, with
      // `npx vitest run --maxWorkers=1 --no-file-parallelism --sequence.shuffle`.
      isolate: false,
      // The machines that run this are shared (a load of 4 per core is common): a per-test
      // budget of 5 s failed tests that pass in 1 s on an idle machine.
      testTimeout: 20_000,
    },
  };
});
