import { defineConfig } from "vitest/config";

// `npm run test:ranges`: the suites that install the packed package from the
// npm registry (test/registry/), kept out of `npm test`, which never leaves 127.0.0.1.
export default defineConfig({
  test: {
    include: ["test/registry/**/*.test.ts"],
    testTimeout: 150_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    onConsoleLog(log, type) {
      if (type === "stderr" && log.includes("@a2a-js/sdk")) return false;
    },
  },
});
