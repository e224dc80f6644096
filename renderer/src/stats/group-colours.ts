/**
 * Colours of groups, stable for the session: a group keeps the colour it first got (AAPL stays blue
 * across runs and toggles) unless another group of the same result already holds it; new groups take
 * the colour least used among the result's groups, preferring colours no other group has had.
 */

/** Distinct colours readable on the dark chart background. */
export const GROUP_PALETTE: readonly string[] = [
  '#4ea1ff',
  '#f5a623',
  '#c678dd',
  '#2ebd85',
  '#ef6f8c',
  '#56d4dd',
  '#e6c07b',
  '#98c379',
  '#ff8f5a',
  '#a0a8ff',
  '#d0d4da',
  '#b5838d',
];

/** Colours for the groups of one result, by key; `memory` (key -> palette index) is read and updated. */
export function assignColours(keys: readonly string[], memory: Map<string, number>): string[] {
  const used = new Array<number>(GROUP_PALETTE.length).fill(0);
  const index = new Array<number>(keys.length).fill(-1);
  keys.forEach((k, i) => {
    const c = memory.get(k);
    if (c !== undefined && used[c] === 0) {
      index[i] = c;
      used[c] = 1;
    }
  });
  // Among the colours least used in this result, prefer those no other group of the session holds.
  const held = new Array<number>(GROUP_PALETTE.length).fill(0);
  for (const c of memory.values()) held[c] = held[c]! + 1;
  keys.forEach((k, i) => {
    if (index[i]! >= 0) return;
    let best = 0;
    for (let c = 1; c < used.length; c++) if (used[c]! < used[best]! || (used[c] === used[best] && held[c]! < held[best]!)) best = c;
    held[best] = held[best]! + 1;
    index[i] = best;
    used[best] = used[best]! + 1;
    memory.set(k, best);
  });
  return index.map((c) => GROUP_PALETTE[c]!);
}

/** A colour with transparency (for histograms drawn over each other). */
export function withAlpha(hex: string, alpha: number): string {
  const n = Number.parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}
