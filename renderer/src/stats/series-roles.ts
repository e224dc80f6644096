/**
 * What an aggregate column is, for charting: a candle part, a volume-like amount, and the input
 * column it summarises. Read from the output's parse tree when the request gave one (agg), else from
 * its name (analytics such as firstPrice, configured names such as tradeCount).
 *
 * Candle rule. A column is a candle part when
 *   - its tree is [first|max|min|last, <column>]: open|high|low|close of that column; or else
 *   - its name is a role word (first/open, max/high/hi, min/low/lo, last/close) alone ("open", "hi"),
 *     as a prefix before a capital, digit or "_" ("firstPrice", "open_px"), or as a suffix after "_"
 *     or as a capitalised word ("priceFirst", "px_close"); the rest of the name, lower-cased without
 *     "_", is the column it summarises.
 * Four numeric columns with the four roles of the same summarised column make a candle set; with
 * several sets the one whose first member comes first in the result wins, the others are lines.
 *
 * Volume rule. A column is volume-like (drawn as a histogram in its own pane) when its tree is a
 * count, or a sum/wsum of a volume-like column (volume, size, qty, ...) or of a product (turnover);
 * or else when its name ends in "count" or starts with "count", names turnover or notional, or is
 * sum/total/wsum of a volume-like word ("sumVolume", "totalSize").
 */
import { argKind, type TreeArg } from '../form/agg-tree';

export type CandleRole = 'open' | 'high' | 'low' | 'close';

export interface CandleSet {
  /** The summarised column, lower-cased ("price"; "" for plain open/high/low/close names). */
  readonly stem: string;
  readonly open: string;
  readonly high: string;
  readonly low: string;
  readonly close: string;
}

const ROLE_WORDS: Readonly<Record<string, CandleRole>> = {
  first: 'open', open: 'open', max: 'high', high: 'high', hi: 'high', min: 'low', low: 'low', lo: 'low', last: 'close', close: 'close',
};
const TREE_ROLES: Readonly<Record<string, CandleRole>> = { first: 'open', max: 'high', min: 'low', last: 'close' };
const WORDS = Object.keys(ROLE_WORDS).join('|');
const PREFIX = new RegExp(`^(${WORDS})(?:_|(?=[A-Z0-9]))(.+)$`);
const SUFFIX = new RegExp(`^(.+?)(?:_(${WORDS})|(${Object.keys(ROLE_WORDS).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('|')}))$`);
const VOLUMEISH = /vol|size|qty|quantity|shares|amount|notional|turnover/i;
const BUILT_IN = /^(first|last|min|max|avg|med|sum)([A-Z].*)$/;

const stemOf = (s: string): string => s.replace(/_/g, '').toLowerCase();

/** The single column a tree applies its operator to ([op, column]), or null. */
function treeColumn(tree: TreeArg | undefined): { op: string; column: string } | null {
  if (!Array.isArray(tree) || tree.length !== 2) return null;
  const [op, x] = tree as [string, TreeArg];
  return typeof x === 'string' && argKind(x) === 'column' && x !== '' ? { op, column: x } : null;
}

/** The candle role of a column and the column it summarises, or null. */
export function candleRole(name: string, tree?: TreeArg): { role: CandleRole; stem: string } | null {
  if (tree !== undefined) {
    const t = treeColumn(tree);
    const role = t ? TREE_ROLES[t.op] : undefined;
    return t && role ? { role, stem: stemOf(t.column) } : null;
  }
  const whole = ROLE_WORDS[name.toLowerCase()];
  if (whole) return { role: whole, stem: '' };
  const p = PREFIX.exec(name);
  if (p) return { role: ROLE_WORDS[p[1]!]!, stem: stemOf(p[2]!) };
  const s = SUFFIX.exec(name);
  if (s) return { role: ROLE_WORDS[(s[2] ?? s[3]!).toLowerCase()]!, stem: stemOf(s[1]!) };
  return null;
}

/** The candle set among columns (in result order), or null; `trees` holds the agg outputs' trees. */
export function findCandles(columns: readonly string[], trees: ReadonlyMap<string, TreeArg>): CandleSet | null {
  const byStem = new Map<string, Partial<Record<CandleRole, string>> & { at: number }>();
  columns.forEach((c, at) => {
    const r = candleRole(c, trees.get(c));
    if (!r) return;
    let set = byStem.get(r.stem);
    if (!set) byStem.set(r.stem, (set = { at }));
    set[r.role] ??= c;
  });
  const full = [...byStem.entries()].filter(([, s]) => s.open && s.high && s.low && s.close).sort((a, b) => a[1].at - b[1].at);
  const best = full[0];
  return best ? { stem: best[0], open: best[1].open!, high: best[1].high!, low: best[1].low!, close: best[1].close! } : null;
}

/** True for a volume-like column (see the rule above). */
export function isVolumeLike(name: string, tree?: TreeArg): boolean {
  if (tree !== undefined && Array.isArray(tree)) {
    const [op, x] = tree as [string, TreeArg];
    if (op === 'count') return true;
    if (op === 'wsum') return true;
    if (op === 'sum') return Array.isArray(x) ? x[0] === '*' : typeof x === 'string' && VOLUMEISH.test(x);
    return false;
  }
  if (/count$/i.test(name) || /^count/.test(name) || /turnover|notional/i.test(name)) return true;
  const m = /^(sum|total|wsum)(.+)$/i.exec(name);
  return m !== null && VOLUMEISH.test(m[2]!);
}

/**
 * The input column a result column summarises, lower-cased: from its tree ([op, column]) or from a
 * built-in analytic name (avgVolume -> volume); null when unknown (configured analytics, nested trees).
 */
export function sourceColumn(name: string, tree?: TreeArg): string | null {
  if (tree !== undefined) return treeColumn(tree)?.column.toLowerCase() ?? null;
  const m = BUILT_IN.exec(name);
  return m ? m[2]!.toLowerCase() : null;
}
