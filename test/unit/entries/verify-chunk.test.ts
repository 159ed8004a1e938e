/**
 * What verification loads on demand: the chunk that discovery, `connect`
 * and sessions import the first time a card needs checking carries the
 * verifier and not the signer, which only `a2a-connect/trust` callers use.
 */
import { join } from "node:path";
import { build, type Metafile } from "esbuild";
import { expect, it } from "vitest";
import { repoRoot, staticInputs } from "../../../scripts/size.js";

const SIGNER = /src\/trust\/sign\.ts|node_modules\/jose\/dist\/webapi\/(jws\/flattened\/sign|lib\/jws_sign)\.js/;

async function metafileOf(entry: string, splitting: boolean): Promise<Metafile> {
  const { metafile } = await build({
    entryPoints: [join(repoRoot, entry)],
    absWorkingDir: repoRoot,
    bundle: true,
    splitting,
    format: "esm",
    platform: "browser",
    write: false,
    outdir: join(repoRoot, "out-verify-chunk"),
    metafile: true,
    logLevel: "silent",
  });
  return metafile;
}

it("the verification chunk the root entry loads on demand carries the verifier, not the signer", async () => {
  const meta = await metafileOf("src/index.ts", true);
  const [chunk] = Object.entries(meta.outputs).find(([, o]) => o.entryPoint === "src/trust/verify.ts")!;
  const inputs = staticInputs(meta, [chunk]);
  expect(inputs.some((i) => i.includes("node_modules/jose/dist/webapi/jws/flattened/verify.js"))).toBe(true);
  expect(inputs.filter((i) => SIGNER.test(i))).toEqual([]);
});

it("the check finds what it looks for: a2a-connect/trust, which exports signAgentCard, carries the signer", async () => {
  const meta = await metafileOf("src/trust.ts", false);
  expect(Object.keys(meta.inputs).filter((i) => SIGNER.test(i)).length).toBeGreaterThan(0);
});
