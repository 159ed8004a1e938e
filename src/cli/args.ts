/**
 * Command-line parsing for `a2a`, on `node:util` parseArgs. Every command
 * shares the global flags; each adds its own options and positionals.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { BINDINGS, type Binding } from "../base/bindings.js";
import { sentSecrets } from "../http/sent-secrets.js";
import { didYouMean } from "./nearest.js";
import { parseTarget } from "./target.js";
import { UsageError } from "./usage-error.js";

export { UsageError };

type OptionSpec = NonNullable<ParseArgsConfig["options"]>;

/** Flags every command accepts, as `node:util` `parseArgs` options. */
export const GLOBAL_OPTIONS = {
  binding: { type: "string" },
  "a2a-version": { type: "string", multiple: true },
  header: { type: "string", multiple: true },
  token: { type: "string" },
  "auth-over-http": { type: "boolean" },
  "allow-local-urls": { type: "boolean" },
  timeout: { type: "string" },
  json: { type: "boolean" },
  verbose: { type: "boolean", short: "v" },
  help: { type: "boolean", short: "h" },
} as const satisfies OptionSpec;

/** Options per command, on top of GLOBAL_OPTIONS. */
export const COMMAND_OPTIONS = {
  card: { verify: { type: "boolean" }, jwks: { type: "string" } },
  send: {
    file: { type: "string", multiple: true },
    data: { type: "string", multiple: true },
    context: { type: "string" },
    task: { type: "string" },
    "no-wait": { type: "boolean" },
  },
  stream: {
    file: { type: "string", multiple: true },
    data: { type: "string", multiple: true },
    context: { type: "string" },
    task: { type: "string" },
  },
  "task get": { history: { type: "string" }, wait: { type: "boolean" } },
  "task list": {
    context: { type: "string" },
    "page-size": { type: "string" },
    "page-token": { type: "string" },
    history: { type: "string" },
  },
  "task cancel": {},
  "task subscribe": {},
  "push create": { "push-url": { type: "string" }, "push-token": { type: "string" } },
  "push get": {},
  "push list": {},
  "push delete": {},
} as const satisfies Record<string, OptionSpec>;

/** A command, with its group: `card`, `send`, `task get`, ... */
export type CommandName = keyof typeof COMMAND_OPTIONS;

/** Positionals per command: names, the required ones first. */
export const POSITIONALS: Record<
  CommandName,
  {
    /** Names of the positionals that must be given, in order. */
    required: string[];
    /** Names of those that may follow. */
    optional: string[];
  }
> = {
  card: { required: ["url"], optional: [] },
  send: { required: ["url", "text"], optional: [] },
  stream: { required: ["url", "text"], optional: [] },
  "task get": { required: ["url", "id"], optional: [] },
  "task list": { required: ["url"], optional: [] },
  "task cancel": { required: ["url", "id"], optional: [] },
  "task subscribe": { required: ["url", "id"], optional: [] },
  "push create": { required: ["url", "taskId"], optional: ["configId"] },
  "push get": { required: ["url", "taskId", "configId"], optional: [] },
  "push list": { required: ["url", "taskId"], optional: [] },
  "push delete": { required: ["url", "taskId", "configId"], optional: [] },
};

/** The subcommands of each command group. */
export const GROUPS = {
  /** `a2a task ...` */
  task: ["get", "list", "cancel", "subscribe"],
  /** `a2a push ...` */
  push: ["create", "get", "list", "delete"],
} as const;

/** The global flags, read and checked. */
export interface GlobalFlags {
  /** `--binding`: the binding to prefer. */
  binding: Binding | undefined;
  /** `--a2a-version`: the protocol versions to speak, when given. */
  versions: string[] | undefined;
  /** Extra request headers, `--token` (or `A2A_TOKEN`) included as Authorization. */
  headers: Record<string, string>;
  /** `--auth-over-http`: send `headers` over plain http to any host the card names, not only this machine and the one typed. */
  authOverHttp: boolean;
  /** `--allow-local-urls`: a card from another host may name this machine or its link (`localUrls: "allow"`). */
  allowLocalUrls: boolean;
  /** `--timeout`: milliseconds for card resolution and each unary call; undefined keeps the defaults. */
  timeoutMs: number | undefined;
  /** `--json`: machine output. */
  json: boolean;
  /** `-v`, `--verbose`: a log of every HTTP exchange on stderr, credentials masked. */
  verbose: boolean;
  /** Values never to print: the token, header values and the target URL's credentials, in the forms they are sent. */
  secrets: string[];
}

/** What the command line asks for: help (on a command, or in general), the version, or a command to run. */
export type Parsed =
  | {
      /** Print help. */
      kind: "help";
      /** The command to describe; undefined for the overview. */
      command: string | undefined;
    }
  | {
      /** Print the version. */
      kind: "version";
    }
  | {
      /** Run a command. */
      kind: "run";
      /** The command. */
      command: CommandName;
      /** Its positionals, by name. */
      args: Record<string, string>;
      /** Its own options, as `parseArgs` read them. */
      options: Record<string, string | boolean | string[] | undefined>;
      /** The global flags. */
      flags: GlobalFlags;
    };

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function wantsHelp(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === "--") return false;
    if (a === "--help" || a === "-h") return true;
  }
  return false;
}

/**
 * Reads argv (without `node` and the script), and `A2A_TOKEN` from `env`
 * when `--token` is absent; throws UsageError.
 */
export function parseCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Parsed {
  const [first, second] = argv;
  if (first === undefined || first === "help") {
    return { kind: "help", command: argv[1] === undefined ? undefined : argv.slice(1, 3).join(" ") };
  }
  if (first === "--version" || first === "-V") return { kind: "version" };
  if (first.startsWith("-")) {
    if (wantsHelp(argv)) return { kind: "help", command: undefined };
    throw new UsageError(`expected a command before ${quoteFlag(first)}`);
  }

  let command: string;
  let rest: readonly string[];
  if (first === "task" || first === "push") {
    const subs: readonly string[] = GROUPS[first];
    if (second === undefined || second.startsWith("-")) {
      if (wantsHelp(argv)) return { kind: "help", command: first };
      throw new UsageError(`"${first}" needs a subcommand: ${subs.join(", ")}`, first);
    }
    if (!subs.includes(second)) {
      const hint = didYouMean(second, subs, (sub) => `${first} ${sub}`);
      throw new UsageError(`unknown subcommand "${first} ${second}" (expected one of: ${subs.join(", ")})${hint}`, first);
    }
    command = `${first} ${second}`;
    rest = argv.slice(2);
  } else if (first in COMMAND_OPTIONS) {
    command = first;
    rest = argv.slice(1);
  } else {
    throw new UsageError(`unknown command "${first}" (expected one of: ${COMMAND_WORDS.join(", ")})${didYouMean(first, COMMAND_WORDS)}`);
  }
  const name = command as CommandName;
  if (wantsHelp(rest)) return { kind: "help", command: name };

  let values: Record<string, string | boolean | string[] | undefined>;
  let positionals: string[];
  const options = { ...GLOBAL_OPTIONS, ...COMMAND_OPTIONS[name] } as OptionSpec;
  try {
    const parsed = parseArgs({
      args: [...rest],
      options,
      allowPositionals: true,
      strict: true,
    });
    // No option is both boolean and multiple.
    values = parsed.values as typeof values;
    positionals = parsed.positionals;
  } catch (e) {
    // parseArgs names the flag, never its value.
    const message = e instanceof Error ? e.message.replace(/\. To specify a positional.*$/s, "") : String(e);
    throw new UsageError(`${message}${misspeltFlagHint(e, options)}`, name);
  }

  const spec = POSITIONALS[name];
  if (positionals.length < spec.required.length) {
    const missing = spec.required
      .slice(positionals.length)
      .map((p) => `<${p}>`)
      .join(" ");
    throw new UsageError(`missing ${missing}`, name);
  }
  if (positionals.length > spec.required.length + spec.optional.length) {
    throw new UsageError(
      `too many arguments (expected ${[...spec.required.map((p) => `<${p}>`), ...spec.optional.map((p) => `[${p}]`)].join(" ")})`,
      name,
    );
  }
  const args: Record<string, string> = {};
  [...spec.required, ...spec.optional].forEach((p, i) => {
    const v = positionals[i];
    if (v !== undefined) args[p] = v;
  });
  const flags = globalFlags(values, name, env);
  if (args.url !== undefined) {
    const target = parseTarget(args.url, name);
    // The target's user info and query values are credentials as much as a token is.
    if (target.kind === "url") flags.secrets.push(...sentSecrets(undefined, target.url));
  }
  return { kind: "run", command: name, args, options: values, flags };
}

/** The words that start a command line: card, send, stream, task, push. */
const COMMAND_WORDS = [...new Set(Object.keys(COMMAND_OPTIONS).map((command) => command.split(" ")[0]!))];

/** For parseArgs' refusal of an unknown long flag, the nearest flag of the command; otherwise nothing. */
function misspeltFlagHint(e: unknown, options: OptionSpec): string {
  if ((e as { code?: unknown } | undefined)?.code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") return "";
  // The message is the only place parseArgs names the flag.
  const typed = /^Unknown option '--([^'=]+)'/.exec((e as Error).message)?.[1];
  return typed === undefined ? "" : didYouMean(typed, Object.keys(options), (flag) => `--${flag}`);
}

function quoteFlag(arg: string): string {
  // Only the flag's name: `--token=secret` must not echo the secret.
  return `"${arg.split("=")[0]}"`;
}

function globalFlags(values: Record<string, unknown>, command: string, env: NodeJS.ProcessEnv): GlobalFlags {
  const binding = bindingOption(values.binding as string | undefined, command);
  const versions = (values["a2a-version"] as string[] | undefined)
    ?.flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter(Boolean);
  if (versions?.some((v) => !/^\d+\.\d+(\.\d+)?$/.test(v))) {
    throw new UsageError(`--a2a-version takes versions like 1.0 or 0.3`, command);
  }
  const headers: Record<string, string> = {};
  const secrets: string[] = [];
  for (const h of (values.header as string[] | undefined) ?? []) {
    const colon = h.indexOf(":");
    const headerName = colon < 0 ? "" : h.slice(0, colon).trim();
    if (!HEADER_NAME.test(headerName)) throw new UsageError(`--header takes "Name: value"`, command);
    const value = h.slice(colon + 1).trim();
    headers[headerName] = value;
    secrets.push(value);
  }
  // The flag wins; an empty A2A_TOKEN counts as unset, as shells clear variables that way.
  const token = (values.token as string | undefined) ?? (env.A2A_TOKEN || undefined);
  if (token !== undefined) {
    if (token === "") throw new UsageError(`--token must not be empty`, command);
    headers.Authorization = `Bearer ${token}`;
    secrets.push(token);
  }
  // Every form a header is sent in (the decoded parts of Basic, cookie values), as errors are masked of them.
  try {
    secrets.push(...sentSecrets(new Headers(headers), undefined));
  } catch {
    // A value Headers refuses is never sent; it is masked as given above.
  }
  return {
    binding,
    versions: versions && versions.length > 0 ? versions : undefined,
    headers,
    authOverHttp: values["auth-over-http"] === true,
    allowLocalUrls: values["allow-local-urls"] === true,
    timeoutMs: intOption(values.timeout, "timeout", command, 1),
    json: values.json === true,
    verbose: values.verbose === true,
    secrets,
  };
}

/** `--binding`, in any case (`grpc`, `http+json`), as the card spells it. */
function bindingOption(value: string | undefined, command: string): Binding | undefined {
  if (value === undefined) return undefined;
  const binding = BINDINGS.find((b) => b === value.toUpperCase());
  if (!binding) throw new UsageError(`--binding must be one of ${BINDINGS.join(", ")} (in any case)`, command);
  return binding;
}

/** A non-negative integer option, or undefined when absent. */
export function intOption(value: unknown, flag: string, command: string, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const s = String(value);
  if (!/^\d+$/.test(s) || Number(s) < min || !Number.isSafeInteger(Number(s))) {
    throw new UsageError(`--${flag} takes a whole number${min > 0 ? ` of at least ${min}` : ""}`, command);
  }
  return Number(s);
}
