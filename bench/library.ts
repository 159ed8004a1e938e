/**
 * The library under test as its users get it: the build in dist/ (`npm run
 * bench` builds first), not the TypeScript sources. Loading the sources
 * through tsx would measure tsx's output instead: it wraps every function
 * to keep its name, which costs CPU on every call and heap on every closure.
 * The types come from the sources, which the build is made from.
 */
type NodeEntry = typeof import("../src/node.js");

const entry = new URL("../dist/src/node.js", import.meta.url).href;

export const lib: NodeEntry = await import(entry).catch((e: unknown) => {
  throw new Error(`the benchmarks run the built library: run \`npm run build\` first (${String(e)})`);
});
