/** Narrowing a list of names by what the user typed. */

/**
 * Names containing the query (case-insensitive), names starting with it first, order otherwise kept;
 * names in `exclude` left out. An empty query keeps every name.
 */
export function matchNames<T extends { readonly value: string }>(items: readonly T[], query: string, exclude: readonly string[] = []): T[] {
  const q = query.trim().toLowerCase();
  const skip = new Set(exclude);
  const kept = items.filter((it) => !skip.has(it.value));
  if (q === '') return kept;
  const starts: T[] = [];
  const contains: T[] = [];
  for (const it of kept) {
    const v = it.value.toLowerCase();
    if (v.startsWith(q)) starts.push(it);
    else if (v.includes(q)) contains.push(it);
  }
  return [...starts, ...contains];
}
