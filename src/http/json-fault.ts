/**
 * Where a text that JSON.parse refused stops being JSON, said in our own
 * words: engines word their messages differently (some give no position)
 * and quote the text around the fault, which may hold a credential.
 */

// A string (its closing quote captured, so that one cut short is told apart), a number, or a literal.
// A string's characters: any but `"`, `\` and the control characters, or an escape.
const SCALAR = /"(?:[ !#-[\]-\uffff]|\\(?:["\\/bfnrt]|u[\da-fA-F]{4}))*(")?|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;

/**
 * The index of the first character of `text` that no JSON text could go on
 * with (`text.length` when it ends too soon), or -1 when it is JSON. Without
 * recursion: a stream event may nest as deep as its size allows.
 */
export function jsonFaultAt(text: string): number {
  // The closers of the open containers, innermost last.
  const closers: string[] = [];
  // 0: a value; 1: a key; 2: the ":" after a key; 3: "," or a closer after a value.
  let want = 0;
  // Right after "{" or "[", whose closer may come at once.
  let opened = false;
  for (let i = 0; ; ) {
    while (/[ \t\n\r]/.test(text.charAt(i))) i++;
    const c = text.charAt(i);
    if (!c) return want === 3 && closers.length === 0 ? -1 : i;
    if ((want === 3 || opened) && c === closers.at(-1)) {
      closers.pop();
      want = 3;
      opened = false;
      i++;
      continue;
    }
    opened = false;
    if (want > 1) {
      // After the top value nothing may follow; inside a container, "," or ":" as expected.
      if (c !== (want === 2 ? ":" : ",") || closers.length === 0) return i;
      want = want === 2 || closers.at(-1) === "]" ? 0 : 1;
      i++;
      continue;
    }
    if (want === 0 && (c === "{" || c === "[")) {
      closers.push(c === "{" ? "}" : "]");
      want = c === "{" ? 1 : 0;
      opened = true;
      i++;
      continue;
    }
    SCALAR.lastIndex = i;
    const m = want === 1 && c !== '"' ? null : SCALAR.exec(text);
    if (!m) {
      // A literal cut short or misspelt: the first character that leaves it.
      const word = want === 0 ? ["true", "false", "null"].find((w) => w[0] === c) : undefined;
      let k = 0;
      while (word && text.charAt(i + k) === word[k]) k++;
      return i + k;
    }
    if (c === '"' && m[1] === undefined) {
      // A string stopped: at a raw control character, or in an escape at what does not continue it.
      let at = SCALAR.lastIndex;
      if (text.charAt(at) === "\\" && text.charAt(++at) === "u") {
        // The first of the four after `\u` that is not a hex digit.
        const end = at + 5;
        while (++at < end && /[\da-fA-F]/.test(text.charAt(at)));
      }
      return at;
    }
    i = SCALAR.lastIndex;
    want = want === 1 ? 2 : 3;
  }
}

/** What `jsonFaultAt` found, in words: the character not read and where, or where the text ended too soon. */
export function describeJsonFault(text: string): string {
  const at = jsonFaultAt(text);
  if (at < 0) return "its JSON could not be read";
  if (at === text.length) return `it ends at position ${at} before the JSON does`;
  // Printable ASCII as it is; anything else (a control character, a byte order mark) by its code.
  const code = text.charCodeAt(at);
  const shown = code > 0x20 && code < 0x7f ? `"${text.charAt(at)}"` : `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  return `cannot read ${shown} at position ${at}`;
}
