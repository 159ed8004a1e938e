/**
 * JSON.parse keeps the last of two equal keys without a word. For a signed
 * document that is an attack surface (a verifier and an application may see
 * different values), so Agent Cards are checked for duplicate keys first.
 */

/** The JSON path of the first duplicated key, or undefined. The text must be valid JSON. */
export function findDuplicateKey(text: string): string | undefined {
  // A stack of open containers: for objects the set of keys seen so far.
  const stack: Array<{ keys: Set<string> | undefined; path: string; index: number; key: string | undefined }> = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const end = stringEnd(text, i);
      const top = stack[stack.length - 1];
      if (expectKey && top?.keys) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.keys.has(key)) return `${top.path}.${key}`;
        top.keys.add(key);
        top.key = key;
        expectKey = false;
      }
      i = end;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      const top = stack[stack.length - 1];
      const path = top === undefined ? "$" : top.keys ? `${top.path}.${top.key}` : `${top.path}[${top.index}]`;
      stack.push({ keys: c === 0x7b ? new Set() : undefined, path, index: 0, key: undefined });
      expectKey = c === 0x7b;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      expectKey = false;
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.keys) expectKey = true;
      else if (top) top.index++;
    }
  }
  return undefined;
}

/** Index of the closing quote of the string starting at `start`. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c /* \ */) i++;
    else if (c === 0x22) return i;
  }
  return text.length - 1;
}
