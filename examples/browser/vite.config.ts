import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

export default defineConfig({
  resolve: {
    // "a2a-connect" is this repository's build (npm run build). In an app of
    // your own, `npm install a2a-connect` and leave this alias out.
    alias: { "a2a-connect": fileURLToPath(new URL("../../dist/src/index.js", import.meta.url)) },
  },
  build: { target: "es2022" },
});
