/** The name a mistyped one was most likely meant to be: `--timout` for `--timeout`, `sned` for `send`. */

/**
 * Edits (insert, delete, replace, swap two neighbours) from `a` to `b`,
 * counted up to `limit`: past it the exact number does not matter, only
 * that the names are too far apart to suggest one for the other.
 */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  // Three rows of the classic table: the one before the previous is needed for swaps.
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const replace = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      let best = Math.min(previous[j]! + 1, row[j - 1]! + 1, replace);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2]! + 1);
      row.push(best);
    }
    before = previous;
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * The candidate nearest to `typed`, when it is near enough to be what was
 * meant: at most one edit for every three characters, and never more than
 * two, so that a short name is not matched to a word that merely shares a
 * letter with it. The first of equally near candidates wins.
 */
export function nearestName(typed: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.min(2, Math.floor(typed.length / 3));
  if (limit === 0) return undefined;
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    const distance = editDistance(typed, candidate, limit);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** `; did you mean <name>?` for the nearest candidate, or nothing. */
export function didYouMean(typed: string, candidates: Iterable<string>, shown: (name: string) => string = (name) => name): string {
  const nearest = nearestName(typed, candidates);
  return nearest === undefined ? "" : `; did you mean ${shown(nearest)}?`;
}
