/**
 * The README and docs/*.md as a reader follows them: every `(#anchor)` and
 * `(file#anchor)` link lands on a heading (GitHub's slugs), every relative
 * file link names a file of the repository, the table of contents lists
 * every section, and the first screen keeps what a newcomer needs.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/size.js";

const DOCS = [
  "README.md",
  ...readdirSync(join(repoRoot, "docs"), { withFileTypes: true })
    .filter((d) => d.isFile() && d.name.endsWith(".md"))
    .map((d) => `docs/${d.name}`),
];

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

describe.each(DOCS)("%s", (file) => {
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

  it("lists every ## section in its table of contents", () => {
    const contents = /^## Contents\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? "";
    const listed = new Set([...contents.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]));
    const sections = [...prose(readme).matchAll(/^## (.+)$/gm)].map((m) => m[1]!).filter((h) => h !== "Contents");
    const missing = sections.filter((h) => !listed.has([...anchorsOf(`## ${h}`)][0]));
    expect(missing).toEqual([]);
  });

  it("opens with the install command, a ts example against the local agent, then the contributors' two commands", () => {
    const firstScreen = readme.slice(0, readme.indexOf("\n## "));
    const install = firstScreen.indexOf("npm install a2a-connect");
    const example = firstScreen.indexOf("```ts\n");
    const demo = firstScreen.indexOf("npm ci && npm run demo");
    const tests = firstScreen.indexOf("npm ci && npm test");
    expect([install, example, demo, tests].every((i) => i >= 0)).toBe(true);
    expect(install < example && example < demo && demo < tests).toBe(true);
    expect(firstScreen).toContain('connect("http://127.0.0.1:41241")');
  });
});
