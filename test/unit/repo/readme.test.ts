/**
 * The README, CONTRIBUTING.md and the guides in docs/ as a reader follows
 * them: every `(#anchor)` and `(file#anchor)` link lands on a heading
 * (GitHub's slugs), every relative file link names a file of the repository,
 * the README stays a page one reads through and links each topic to its guide,
 * and its first screen keeps what a newcomer needs.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../../scripts/size.js";

const DOCS = [
  "README.md",
  "CONTRIBUTING.md",
  ...readdirSync(join(repoRoot, "docs"), { withFileTypes: true })
    .filter((d) => d.isFile() && d.name.endsWith(".md"))
    .map((d) => `docs/${d.name}`),
];

/** The topics a user looks up, each with its guide. */
const GUIDES: Readonly<Record<string, string>> = {
  connecting: "docs/connecting.md",
  operations: "docs/operations.md",
  "streams and waiting": "docs/streams.md",
  errors: "docs/errors.md",
  retries: "docs/retries.md",
  transports: "docs/transports.md",
  "discovery and trust": "docs/discovery-and-trust.md",
  auth: "docs/auth.md",
  push: "docs/push.md",
  browser: "docs/browser.md",
  CLI: "docs/cli.md",
  observability: "docs/observability.md",
  "generated code": "docs/generated-code.md",
  "interop kit": "docs/interop-kit.md",
};

/** Comparable libraries keep theirs between 150 and 250 lines and link into their docs. */
const README_MAX_LINES = 250;

const text = (file: string): string => readFileSync(join(repoRoot, file), "utf8");

/** The document without its fenced code blocks, where `#` and `](` mean nothing. */
const prose = (md: string): string => md.replace(/^```[\s\S]*?^```/gm, "");

/** The heading anchors GitHub makes: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading] of prose(md).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = heading!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Links of a document: `[text](target)`, outside code, other than absolute URLs. */
const localLinks = (md: string): string[] =>
  [...prose(md).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/i.test(t));

/** The files a document's local links lead to, relative to the repository. */
const linkedFiles = (file: string): Set<string> =>
  new Set(localLinks(text(file)).map((link) => relative(repoRoot, join(repoRoot, dirname(file), link.split("#")[0]!))));

describe.each(DOCS)("%s", (file) => {
  it("exists", () => {
    expect(existsSync(join(repoRoot, file))).toBe(true);
  });

  it("every local link names a file that exists and, with an anchor, a heading in it", () => {
    const broken: string[] = [];
    for (const link of localLinks(text(file))) {
      const [path, anchor] = link.split("#", 2) as [string, string | undefined];
      const target = path === "" ? file : relative(repoRoot, join(repoRoot, dirname(file), path));
      if (!existsSync(join(repoRoot, target))) broken.push(`${link}: no file ${target}`);
      else if (anchor !== undefined && target.endsWith(".md") && !anchorsOf(text(target)).has(anchor))
        broken.push(`${link}: no heading #${anchor} in ${target}`);
    }
    expect(broken).toEqual([]);
  });
});

describe("README.md", () => {
  const readme = text("README.md");

  it(`is at most ${README_MAX_LINES} lines`, () => {
    expect(readme.trimEnd().split("\n").length).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it("links every topic to its guide in docs/", () => {
    const linked = linkedFiles("README.md");
    const missing = Object.entries(GUIDES)
      .filter(([, guide]) => !linked.has(guide) || !existsSync(join(repoRoot, guide)))
      .map(([topic, guide]) => `${topic}: ${guide}`);
    expect(missing).toEqual([]);
  });

  it("links the contributor's guide and the interop matrix", () => {
    const linked = linkedFiles("README.md");
    expect([...linked].filter((f) => f === "CONTRIBUTING.md" || f === "docs/interop.md").sort()).toEqual([
      "CONTRIBUTING.md",
      "docs/interop.md",
    ]);
  });

  it("opens with how to install, a ts example against the local agent, then the contributors' two commands", () => {
    const firstScreen = readme.slice(0, readme.indexOf("\n## "));
    const install = firstScreen.indexOf("npm install ");
    const example = firstScreen.indexOf("```ts\n");
    const demo = firstScreen.indexOf("npm ci && npm run demo");
    const tests = firstScreen.indexOf("npm ci && npm test");
    expect([install, example, demo, tests].every((i) => i >= 0)).toBe(true);
    expect(install < example && example < demo && demo < tests).toBe(true);
    expect(firstScreen).toContain('connect("http://127.0.0.1:41241")');
  });

  it("says how to install before the package is published: a tarball packed from a clone", () => {
    const firstScreen = readme.slice(0, readme.indexOf("\n## "));
    expect(firstScreen).toContain("npm pack");
    expect(firstScreen).toMatch(/npm install \S*a2a-connect-\d+\.\d+\.\d+\.tgz/);
  });
});

describe("docs/", () => {
  it("is, with CONTRIBUTING.md, part of the site npm run docs builds (typedoc.json's projectDocuments)", () => {
    const { projectDocuments = [] } = JSON.parse(text("typedoc.json")) as { projectDocuments?: string[] };
    expect(DOCS.filter((f) => f !== "README.md" && !projectDocuments.includes(f))).toEqual([]);
  });

  it("has a guide for every topic, each opening with a title", () => {
    const untitled = Object.values(GUIDES).filter((g) => !existsSync(join(repoRoot, g)) || !/^# \S/.test(text(g)));
    expect(untitled).toEqual([]);
  });
});
