import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // The examples import the package by name, as apps do; tests give them
    // the sources, as tsconfig.json's paths do for the type check.
    alias: [{ find: /^a2a-connect$/, replacement: fileURLToPath(new URL("./src/index.ts", import.meta.url)) }],
  },
  test: {
    include: ["test/**/*.test.ts"],
    // Needs Chromium: run by `npm run test:browser` (vitest.browser.config.ts); needs the
    // npm registry: run by `npm run test:ranges` (vitest.ranges.config.ts).
    // The SDK peers' own installs (test/peers/*/.venv) hold no tests of ours.
    // The Rust peer's suite runs only when asked for (A2A_RUST_PEER=1): its build takes minutes.
    exclude: [
      ...configDefaults.exclude,
      "test/browser/**",
      "test/registry/**",
      "**/.venv/**",
      ...(process.env.A2A_RUST_PEER === "1" ? [] : ["test/peers/rust.test.ts"]),
    ],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Each file starts its own servers on ephemeral 127.0.0.1 ports.
    fileParallelism: true,
    // The official server logs every error it returns, with a stack trace;
    // the error tests provoke those on purpose. (The older release is
    // installed under the alias a2a-sdk-1-0-beta.)
    onConsoleLog(log, type) {
      if (type === "stderr" && (log.includes("@a2a-js/sdk") || log.includes("a2a-sdk-1-0-beta"))) return false;
    },
  },
});
