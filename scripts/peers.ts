/**
 * Installs the interop suite's peers (test/peers/<name>/, see
 * test/support/sdk-peers.ts) from their registries, each pinned: the Python
 * SDK peer and the framework peers (FastA2A, Google ADK) into virtual
 * environments of their own from requirements.txt (PyPI), the npm framework
 * peers (@a2a-js/sdk 0.3.14, VoltAgent, Mastra) from their own lockfile
 * (the npm registry), the Go peer built
 * against go.sum (the Go module proxy), the Java 0.3 peer built by Maven
 * from its pom.xml (Maven Central), and for the Java 1.x peer whether its
 * artifacts resolve. Idempotent and quick when nothing changed: `npm test`
 * runs it first.
 *
 *   npm run peers            all of them (the Rust peer too with A2A_RUST_PEER=1)
 *   npm run peers -- python  only those named
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../test/peers/", import.meta.url));

class StepFailed extends Error {}

function run(what: string, command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): void {
  const started = Date.now();
  process.stderr.write(`peers: ${what} ...\n`);
  const r = spawnSync(command, args, { cwd, stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, ...env } });
  if (r.error) throw new StepFailed(`${what}: could not run ${command}: ${r.error.message}`);
  if (r.status !== 0) throw new StepFailed(`${what}: ${command} ${args.join(" ")} exited with ${r.status ?? r.signal}`);
  process.stderr.write(`peers: ${what}: done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

/** Runs `build` unless `stamp` holds `wanted` (the hash of what it was last built from), then records it there. */
function unlessBuiltFrom(stamp: string, wanted: string, build: () => void): void {
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === wanted) return;
  build();
  writeFileSync(stamp, wanted);
}

/** A Python peer: a virtual environment of its own, made anew whenever its requirements.txt changes. */
function pythonPeer(folder: string, label: string): () => void {
  return () => {
    const dir = `${ROOT}${folder}/`;
    unlessBuiltFrom(`${dir}.venv/requirements.sha256`, sha256(`${dir}requirements.txt`), () => {
      run(`${label}: virtual environment`, "python3", ["-m", "venv", "--clear", ".venv"], dir);
      run(
        `${label}: pip install -r requirements.txt`,
        `${dir}.venv/bin/pip`,
        ["install", "--quiet", "--disable-pip-version-check", "--no-input", "--only-binary", ":all:", "-r", "requirements.txt"],
        dir,
      );
    });
  };
}

/** The npm framework peers (test/peers/npm-frameworks): their own lockfile, installed anew whenever it changes. */
function npmFrameworks(): void {
  const dir = `${ROOT}npm-frameworks/`;
  unlessBuiltFrom(`${dir}node_modules/package-lock.sha256`, sha256(`${dir}package-lock.json`), () =>
    // No install scripts: none of these servers needs one, and none is run from a registry package here.
    run("npm framework peers: npm ci", "npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], dir),
  );
}

/** The Go peer: `go build` is incremental, so it always runs. */
function go(): void {
  run("Go peer: go build", "go", ["build", "-o", "peer", "."], `${ROOT}go/`, { GOFLAGS: "-mod=readonly" });
}

/** Every file under `dir` (relative paths, sorted), for a stamp over a source tree. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => `${e.parentPath}/${e.name}`.slice(dir.length))
    .sort();
}

/**
 * The Java 0.3 peer (test/peers/java: our Quarkus app on the Java SDK's 0.3.3
 * reference servers): `mvn package`, whenever its pom.xml or sources changed
 * since the last build (the build takes 20 s even when nothing changed).
 */
function java03(): void {
  const dir = `${ROOT}java/`;
  const stamp = `${dir}target/sources.sha256`;
  const hash = createHash("sha256");
  for (const file of ["pom.xml", ...filesUnder(`${dir}src/`).map((f) => `src/${f}`)])
    hash.update(`${file}\0`).update(readFileSync(`${dir}${file}`));
  // A stamp without the app it stamps (a target/ cleaned in part) builds again.
  if (!existsSync(`${dir}target/quarkus-app/quarkus-run.jar`)) rmSync(stamp, { force: true });
  unlessBuiltFrom(stamp, hash.digest("hex"), () => run("Java 0.3 peer: mvn package", "mvn", ["-q", "-B", "package"], dir));
}

/** The Java reference servers' artifact that decides whether the Java 1.x peer can be built here. */
const JAVA_ARTIFACT = "org.a2aproject.sdk:a2a-java-sdk-reference-jsonrpc:1.2.0.Final:pom";

/**
 * The Java 1.x peer (the official reference servers, on Quarkus) is required as
 * soon as its artifacts resolve. Until they do, the reason is recorded in
 * test/peers/java/UNAVAILABLE, word for word from Maven, and its suite skips
 * with it (so it does on a machine without Maven, saying so: docs/interop.md,
 * which CI checks against its run, names the reason, so CI cannot take one
 * for the other); any other failure (no network) fails the install.
 */
function java(): void {
  java1();
  java03();
}

function java1(): void {
  const dir = `${ROOT}java/`;
  process.stderr.write(`peers: Java 1.x peer: does ${JAVA_ARTIFACT} resolve ...\n`);
  const r = spawnSync("mvn", ["-B", "-U", "dependency:get", `-Dartifact=${JAVA_ARTIFACT}`, "-Dtransitive=false"], { encoding: "utf8" });
  if ((r.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT") {
    // No Maven, no answer either way: said so, and the matrix check (which names the reason) tells CI apart.
    writeFileSync(`${dir}UNAVAILABLE`, "Maven (mvn) is not installed on this machine\n");
    process.stderr.write("peers: Java 1.x peer: not checked: mvn is not installed\n");
    return;
  }
  if (r.error) throw new StepFailed(`Java 1.x peer: could not run mvn: ${r.error.message}`);
  if (r.status === 0) {
    rmSync(`${dir}UNAVAILABLE`, { force: true });
    process.stderr.write("peers: Java 1.x peer: the artifact resolves, so the Java 1.x peer is required\n");
    return;
  }
  const missing = /(?:Couldn't download artifact|Could not find artifact)[^\n]*/.exec(r.stdout)?.[0];
  if (missing === undefined) {
    const error = r.stdout.split("\n").find((l) => l.startsWith("[ERROR]")) ?? `exit ${r.status}`;
    throw new StepFailed(`Java 1.x peer: mvn dependency:get failed: ${error}`);
  }
  const reason = `Maven Central as reached from this machine does not serve ${JAVA_ARTIFACT} (mvn dependency:get: ${missing.replace(/ during a previous attempt.*$/, "").replace(/ \(https?:[^)]*\)/g, "")})`;
  writeFileSync(`${dir}UNAVAILABLE`, `${reason}\n`);
  process.stderr.write(`peers: Java 1.x peer: not installable: ${reason}\n`);
}

/** The env variable that builds (and runs the suite of) the optional Rust peer. */
const RUST_SWITCH = "A2A_RUST_PEER";

/**
 * The Rust peer (test/peers/rust, the crates.io A2A server crates): optional,
 * as it builds for 4 to 12 minutes cold on two cores; built when named or
 * when A2A_RUST_PEER=1, against its Cargo.lock.
 */
function rust(): void {
  const dir = `${ROOT}rust/`;
  run("Rust peer: cargo build", "cargo", ["build", "--release", "--locked", "--quiet"], dir, { CARGO_TARGET_DIR: `${dir}target` });
}

const PEERS: Record<string, () => void> = {
  python: pythonPeer("python", "Python peer"),
  go,
  java,
  fasta2a: pythonPeer("fasta2a", "FastA2A peer"),
  adk: pythonPeer("adk", "Google ADK peer"),
  "npm-frameworks": npmFrameworks,
};
/** Built only when named, or when asked for by RUST_SWITCH. */
const OPTIONAL: Record<string, () => void> = { rust };

const named = process.argv.slice(2);
const all = { ...PEERS, ...OPTIONAL };
for (const name of named) if (!(name in all)) throw new Error(`no peer named ${name}; peers: ${Object.keys(all).join(", ")}`);
const wanted = named.length > 0 ? named : [...Object.keys(PEERS), ...(process.env[RUST_SWITCH] === "1" ? Object.keys(OPTIONAL) : [])];
try {
  for (const [name, install] of Object.entries(all)) if (wanted.includes(name)) install();
} catch (err) {
  if (!(err instanceof StepFailed)) throw err;
  process.stderr.write(`peers: ${err.message}\n`);
  process.exit(1);
}
