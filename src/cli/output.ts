/**
 * Where `a2a` writes: human lines (coloured only on a TTY without NO_COLOR)
 * or JSON, with every secret the caller passed masked on the way out.
 */
import type { Writable } from "node:stream";
import { secretMasker } from "../errors/redact.js";

/** Where an `Output` writes, and how. */
export interface OutputOptions {
  /** Results. Default `process.stdout`; colours only when it is a TTY. */
  stdout?: Writable & {
    /** Whether it is a terminal. */
    isTTY?: boolean;
  };
  /** Errors and progress. Default `process.stderr`; progress for people only when it is a TTY. */
  stderr?: Writable & {
    /** Whether it is a terminal. */
    isTTY?: boolean;
  };
  /** Machine output (JSON) instead of lines for people. */
  json?: boolean;
  /** Strings never to print (token, header values). */
  secrets?: readonly string[];
  /** The environment, for `NO_COLOR`. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** The SGR sequences the paints write (bold, faint, the colours, and their ends), which alone may reach the terminal. */
const OWN_SGR = "\x1b\\[(?:1|2|22|31|32|33|36|39)m";
/** Control characters but tab and newline: C0, DEL and C1, which a terminal may act on. */
const CONTROLS = "[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f]";

/** Wraps text in a colour, or returns it as is when colours are off. */
export type Paint = (s: string) => string;

/** The CLI's output: lines for people or JSON, secrets masked, colours on a terminal only. */
export class Output {
  /** Whether output is JSON. */
  readonly json: boolean;
  /** Whether stderr is a terminal, where a person watches progress. */
  readonly errTerminal: boolean;
  /** Bold text. */
  readonly bold: Paint;
  /** Faint text. */
  readonly dim: Paint;
  /** Red text. */
  readonly red: Paint;
  /** Green text. */
  readonly green: Paint;
  /** Yellow text. */
  readonly yellow: Paint;
  /** Cyan text. */
  readonly cyan: Paint;
  private readonly out: Writable;
  private readonly err: Writable;
  private secrets: string[];
  private mask: (text: string) => string = (text) => text;
  /** What an agent's text may hold that would drive the terminal (escape sequences), our own colours aside. */
  private readonly controls: RegExp;

  constructor(options: OutputOptions = {}) {
    const stdout = options.stdout ?? process.stdout;
    const env = options.env ?? process.env;
    this.out = stdout;
    const stderr = options.stderr ?? process.stderr;
    this.err = stderr;
    this.errTerminal = stderr.isTTY === true;
    this.json = options.json ?? false;
    this.secrets = [];
    this.addSecrets(options.secrets ?? []);
    const colored = stdout.isTTY === true && !env.NO_COLOR;
    this.controls = new RegExp(colored ? `${OWN_SGR}|${CONTROLS}` : CONTROLS, "g");
    const sgr = (open: number, close: number): Paint => (colored ? (s) => `\x1b[${open}m${s}\x1b[${close}m` : (s) => s);
    this.bold = sgr(1, 22);
    this.dim = sgr(2, 22);
    this.red = sgr(31, 39);
    this.green = sgr(32, 39);
    this.yellow = sgr(33, 39);
    this.cyan = sgr(36, 39);
  }

  /** More strings to mask; those under four characters are not, as they would mask ordinary text. */
  addSecrets(secrets: readonly string[]): void {
    // Very short values would mask ordinary text.
    this.secrets = [...new Set([...this.secrets, ...secrets.filter((s) => s.length >= 4)])];
    this.mask = secretMasker(this.secrets);
  }

  /** `text` with every secret replaced by `***`, in whatever encoding a server echoed it. */
  redact(text: string): string {
    return this.mask(text);
  }

  /** A human line on stdout. */
  line(text = ""): void {
    this.out.write(this.printable(this.redact(text)) + "\n");
  }

  /**
   * `text` as a terminal may show it: what the agent sent (a card's name, a
   * message, an error's text) must not clear the screen, retitle the window,
   * write the clipboard or hide what follows, so every control character but
   * tab and newline (CR LF read as a newline) becomes `?`, our colours aside.
   */
  private printable(text: string): string {
    return text.replace(/\r\n/g, "\n").replace(this.controls, (m) => (m.length > 1 ? m : "?"));
  }

  /** One JSON document (or stream line) on stdout. */
  jsonLine(value: unknown, pretty = false): void {
    this.out.write(JSON.stringify(this.redactJson(value), undefined, pretty ? 2 : undefined) + "\n");
  }

  /** One JSON line on stderr: an error or a notice, with `--json`. */
  jsonError(value: unknown): void {
    this.err.write(JSON.stringify(this.redactJson(value)) + "\n");
  }

  /**
   * `value` with every secret masked in its strings and keys, and a number
   * that shows one turned into the masked string. Masked before it is
   * written out, as masking the JSON text would put `***` in place of a
   * number and the output would no longer parse.
   */
  private redactJson(value: unknown): unknown {
    if (typeof value === "string") return this.redact(value);
    if (typeof value === "number") {
      const masked = this.redact(String(value));
      return masked === String(value) ? value : masked;
    }
    if (Array.isArray(value)) return value.map((v) => this.redactJson(v));
    if (typeof value === "object" && value !== null) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[this.redact(k)] = this.redactJson(v);
      return out;
    }
    return value;
  }

  /** A line on stderr, as `line` writes one. */
  error(text: string): void {
    this.err.write(this.printable(this.redact(text)) + "\n");
  }

  /** Resolves once both streams have handed their data to the OS. */
  async flush(): Promise<void> {
    await Promise.all([this.out, this.err].map((s) => new Promise<void>((resolve) => s.write("", () => resolve()))));
  }
}
