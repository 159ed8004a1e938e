import { defineConfig } from "vitest/config";

// `npm run test:browser`: the package in Chromium (test/browser). Kept out of
// `npm test`, which must run where no browser is installed.
export default defineConfig({
  test: {
    include: ["test/browser/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    onConsoleLog(log, type) {
      if (type === "stderr" && log.includes("@a2a-js/sdk")) return false;
    },
  },
});
