/**
 * Code loaded on demand, the one way this package does it: the public
 * function lives in a small module and calls the returned function, which
 * starts `load` (a dynamic `import()`) on its first call and gives the same
 * promise after. A failed load (a chunk that could not be fetched) is tried
 * again on the next call.
 */
export function onDemand<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((e: unknown) => {
      loading = undefined;
      throw e;
    }));
}
