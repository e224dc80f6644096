/**
 * A getStats result (the whole table as Arrow) as series: one slot per bucket (labels are UTC ns),
 * the groups (distinct values of the group columns, sorted), and for every numeric result column one
 * value array per group, aligned to the slots (NaN where the group has no row in a bucket). Results
 * without buckets have a single slot.
 */
import { type Table as ArrowTable, Type, type Vector } from 'apache-arrow';

export interface StatsGroup {
  /** Identity of the group (its values joined), stable across results. */
  readonly key: string;
  /** Its values, one per group column ("" for null). */
  readonly values: readonly string[];
  /** What the legend shows: the values joined by " · ", or "all" without group columns. */
  readonly label: string;
}

export interface StatsModel {
  /** True when the result has a bucket time column. */
  readonly bucketed: boolean;
  /** Bucket labels (UTC ns), ascending; one 0n slot when not bucketed. */
  readonly times: BigInt64Array;
  readonly groupColumns: readonly string[];
  readonly groups: readonly StatsGroup[];
  /** Numeric result columns (not time, not group), in result order. */
  readonly columns: readonly string[];
  /** values[column index][group index][slot]. */
  readonly values: ReadonlyArray<ReadonlyArray<Float64Array>>;
  /** Result columns that cannot be charted (symbols, timestamps, lists), for the legend's note. */
  readonly skipped: readonly string[];
  /** The first result row of each group (the grid row a bar selects when there are no buckets). */
  readonly firstRow: Int32Array;
}

export interface StatsMeta {
  readonly timeColumn: string | null;
  readonly groupColumns: readonly string[];
}

const NUMBER_TYPES = new Set<Type>([Type.Int, Type.Float, Type.Decimal]);

const SEP = '\u001f';

function cellText(v: Vector, i: number): string {
  if (!v.isValid(i)) return '';
  const x: unknown = v.get(i);
  return typeof x === 'string' ? x : String(x);
}

function numbersOf(v: Vector): (i: number) => number {
  const typed = v.type.typeId === Type.Float ? (v.toArray() as Float64Array | Float32Array) : null;
  return (i) => {
    if (!v.isValid(i)) return NaN;
    return typed ? typed[i]! : Number(v.get(i));
  };
}

const compareParts = (a: readonly string[], b: readonly string[]): number => {
  for (let k = 0; k < a.length; k++) {
    const c = a[k]! < b[k]! ? -1 : a[k]! > b[k]! ? 1 : 0;
    if (c !== 0) return c;
  }
  return 0;
};

/** The series model of a getStats result. */
export function statsModel(t: ArrowTable, meta: StatsMeta): StatsModel {
  const n = t.numRows;
  const timeVec = meta.timeColumn ? t.getChild(meta.timeColumn) : null;
  const groupVecs = meta.groupColumns.map((c) => t.getChild(c)).filter((v): v is Vector => v !== null);

  let times: BigInt64Array;
  let slotOf: (i: number) => number;
  if (timeVec) {
    const raw = timeVec.toArray() as BigInt64Array;
    times = BigInt64Array.from(new Set(raw)).sort();
    const slot = new Map<bigint, number>();
    times.forEach((x, k) => slot.set(x, k));
    slotOf = (i) => slot.get(raw[i]!)!;
  } else {
    times = new BigInt64Array(1);
    slotOf = () => 0;
  }

  const rowKeys: string[] = new Array<string>(n);
  const byKey = new Map<string, readonly string[]>();
  const firstOf = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const parts = groupVecs.map((v) => cellText(v, i));
    const key = parts.join(SEP);
    rowKeys[i] = key;
    if (!byKey.has(key)) {
      byKey.set(key, parts);
      firstOf.set(key, i);
    }
  }
  const groups: StatsGroup[] = [...byKey.entries()]
    .sort((a, b) => compareParts(a[1], b[1]))
    .map(([key, values]) => ({ key, values, label: values.length ? values.map((x) => x || '(null)').join(' · ') : 'all' }));
  const groupIndex = new Map(groups.map((g, k) => [g.key, k]));

  const columns: string[] = [];
  const skipped: string[] = [];
  const values: Float64Array[][] = [];
  for (const field of t.schema.fields) {
    if (field.name === meta.timeColumn || meta.groupColumns.includes(field.name)) continue;
    if (!NUMBER_TYPES.has(field.type.typeId)) {
      skipped.push(field.name);
      continue;
    }
    const read = numbersOf(t.getChild(field.name)!);
    const perGroup = groups.map(() => new Float64Array(times.length).fill(NaN));
    for (let i = 0; i < n; i++) perGroup[groupIndex.get(rowKeys[i]!)!]![slotOf(i)] = read(i);
    columns.push(field.name);
    values.push(perGroup);
  }
  const firstRow = Int32Array.from(groups, (g) => firstOf.get(g.key)!);
  return { bucketed: timeVec !== null, times, groupColumns: meta.groupColumns, groups, columns, values, skipped, firstRow };
}

/** The values of one column for one group (undefined when the column is not in the model). */
export function seriesOf(m: StatsModel, column: string, group: number): Float64Array | undefined {
  const c = m.columns.indexOf(column);
  return c < 0 ? undefined : m.values[c]?.[group];
}
